import type { AccessTokenFormat, ApplicationAdminStore, ApplicationInput, ApplicationRecord, ApplicationStore } from '../oauth/store.js';
import { TOKEN_ENDPOINT_AUTH_METHODS, UidTaken, type RegisteredBy, type TokenEndpointAuthMethod } from '../oauth/store.js';
import { Prisma, type OauthApplication } from './generated/browser.js';
import type { PrismaClient } from './generated/client.js';
import { uniqueViolation } from './prisma-errors.js';
import { selectList, splitList, timestamp, type Row } from './rows.js';
import { isSigningAlgorithm, type SigningAlgorithm } from '../oauth/keys/signing-keys.js';
import type { SqlClient } from './sql-client.js';

// oauth_applications. Client authentication reads it on every token and introspection request: raw SQL,
// named statements (and application-cache.ts in front); the listing too, so that `apps list` never loads Prisma
// (prisma-on-first-use.ts). The admin UI and the CLI write it through Prisma, where the cost does not matter.

// A value written by another tool and not one of ours is treated as unset (RS256, plain JSON).
const signingAlgorithmOrNull = (value: string | null): SigningAlgorithm | null =>
  value !== null && isSigningAlgorithm(value) ? value : null;

/** Anything but "jwt" (another tool's value included) is the opaque default. */
export const accessTokenFormatOf = (value: string): AccessTokenFormat => (value === 'jwt' ? 'jwt' : 'opaque');

export const APPLICATION_COLUMNS = selectList(Prisma.OauthApplicationScalarFieldEnum);

/** The table's one mapper: every column is its record field as it is, but the id and the two lists. */
export const toApplication = ({
  id,
  redirectUri,
  scopes,
  postLogoutRedirectUri,
  idTokenSignedResponseAlg,
  userinfoSignedResponseAlg,
  authorizationSignedResponseAlg,
  accessTokenFormat,
  refreshTokens,
  registeredBy,
  grantTypes,
  tokenEndpointAuthMethod,
  applicationType,
  contacts,
  operatorGrantTypes,
  operatorScopes,
  subjectType,
  profile,
  ...columns
}: Row<OauthApplication>): ApplicationRecord => ({
  ...columns,
  id: Number(id),
  redirectUris: splitList(redirectUri),
  scopes: splitList(scopes),
  postLogoutRedirectUris: splitList(postLogoutRedirectUri),
  idTokenSignedResponseAlg: signingAlgorithmOrNull(idTokenSignedResponseAlg),
  userinfoSignedResponseAlg: signingAlgorithmOrNull(userinfoSignedResponseAlg),
  authorizationSignedResponseAlg: signingAlgorithmOrNull(authorizationSignedResponseAlg),
  accessTokenFormat: accessTokenFormatOf(accessTokenFormat),
  // Anything but our offline_access marker (another tool's value included) is the default, always.
  refreshTokens: refreshTokens === 'offline_access' ? 'offlineAccess' : 'always',
  registeredBy: registeredByOf(registeredBy),
  grantTypes: grantTypes === null ? null : splitList(grantTypes),
  tokenEndpointAuthMethod: authMethodOrNull(tokenEndpointAuthMethod),
  applicationType: applicationType === 'web' || applicationType === 'native' ? applicationType : null,
  contacts: splitList(contacts),
  operatorGrantTypes: splitList(operatorGrantTypes),
  operatorScopes: splitList(operatorScopes),
  // Another tool's value is the public default: a pairwise sub is only ever our own marker's.
  subjectType: subjectType === 'pairwise' ? 'pairwise' : 'public',
  // Another tool's value applies no profile: only our own marker does.
  profile: profile === 'fapi2' ? 'fapi2' : 'none',
});

// Another tool's value is not a self-registration: only our two markers are.
const registeredByOf = (value: string): RegisteredBy => (value === 'dynamic' || value === 'metadata_document' ? value : 'admin');
const authMethodOrNull = (value: string | null): TokenEndpointAuthMethod | null =>
  (TOKEN_ENDPOINT_AUTH_METHODS as readonly (string | null)[]).includes(value) ? (value as TokenEndpointAuthMethod) : null;

/** The record's fields as Prisma's data, for writes; a field left undefined is not written. */
const toColumns = <Input extends Partial<ApplicationInput>>({
  redirectUris,
  scopes,
  postLogoutRedirectUris,
  refreshTokens,
  grantTypes,
  contacts,
  operatorGrantTypes,
  operatorScopes,
  ...columns
}: Input) => ({
  ...columns,
  redirectUri: redirectUris?.join('\n'),
  scopes: scopes?.join(' '),
  postLogoutRedirectUri: postLogoutRedirectUris?.join('\n'),
  refreshTokens: refreshTokens && (refreshTokens === 'offlineAccess' ? 'offline_access' : 'always'),
  grantTypes: grantTypes === null ? null : grantTypes?.join(' '),
  contacts: contacts?.join('\n'),
  operatorGrantTypes: operatorGrantTypes?.join(' '),
  operatorScopes: operatorScopes?.join(' '),
});

const BY_UID = { name: 'application_by_uid', text: `SELECT ${APPLICATION_COLUMNS} FROM oauth_applications WHERE uid = $1` };
const BY_ID = { name: 'application_by_id', text: `SELECT ${APPLICATION_COLUMNS} FROM oauth_applications WHERE id = $1` };
const BY_ID_FOR_UPDATE = `SELECT ${APPLICATION_COLUMNS} FROM oauth_applications WHERE id = $1 FOR UPDATE`;
const ALL = `SELECT ${APPLICATION_COLUMNS} FROM oauth_applications ORDER BY created_at, id`;
// Once per client: the cleanup of self-registered clients removes those never used (issue 19).
const MARK_USED = { name: 'application_mark_used', text: 'UPDATE oauth_applications SET used_at = $2 WHERE id = $1 AND used_at IS NULL' };

/**
 * `reads` serves the two lookups of client authentication: the read replica when there is one (database.readSql),
 * so introspection keeps authenticating clients while a failover leaves no primary. That is as safe as reading
 * tokens there (read-replica.ts): every commit of the service waits until the synchronous standby has applied it,
 * so a rotated secret or a deleted application is seen there once the change has its answer, well within the
 * application cache's own lifetime (application-cache.ts).
 */
export function applicationRepository(
  sql: SqlClient,
  prisma: PrismaClient,
  reads: SqlClient = sql,
): ApplicationStore & ApplicationAdminStore {
  const one = (rows: Row<OauthApplication>[]) => (rows[0] ? toApplication(rows[0]) : null);
  return {
    async findByUid(uid) {
      // PostgreSQL text cannot hold NUL: such a uid matches nothing (and must not become a driver error).
      if (uid.includes('\u0000')) return null;
      return one(await reads.query<Row<OauthApplication>>(BY_UID, [uid]));
    },
    findById: async (id) => one(await reads.query<Row<OauthApplication>>(BY_ID, [id])),
    findByIdForUpdate: async (id) => one(await sql.query<Row<OauthApplication>>(BY_ID_FOR_UPDATE, [id])),
    async markUsed(id, at) {
      await sql.query(MARK_USED, [id, timestamp(at)]);
    },
    list: async () => (await sql.query<Row<OauthApplication>>(ALL)).map(toApplication),
    async create(input) {
      try {
        // A creation instant given by the domain (its clock) is the row's first update too, as the default would be.
        const data = input.createdAt ? { ...toColumns(input), updatedAt: input.createdAt } : toColumns(input);
        return toApplication(await prisma.oauthApplication.create({ data }));
      } catch (error) {
        if (uniqueViolation(error)) throw new UidTaken(input.uid);
        throw error;
      }
    },
    async update(id, changes, only) {
      // One UPDATE ... RETURNING, null when it matched no row; with `only`, WHERE id AND registration_access_token: a
      // concurrent rotation makes it match nothing.
      const where = { id: BigInt(id), ...(only && { registrationAccessToken: only.registrationAccessToken }) };
      const [row] = await prisma.oauthApplication.updateManyAndReturn({ where, data: toColumns(changes) });
      return row ? toApplication(row) : null;
    },
    async findByRegistrationAccessToken(storedToken) {
      const row = await prisma.oauthApplication.findUnique({ where: { registrationAccessToken: storedToken } });
      return row && toApplication(row);
    },
    async delete(id, only) {
      // Grants and tokens go with it (foreign keys ON DELETE CASCADE, reference section 13). A resource it served no
      // longer names it, in the same statement: an application made later with the same client_id must not inherit
      // the right to introspect that API's tokens. With `only`, as update's: a concurrent rotation makes it match nothing.
      const token = only?.registrationAccessToken ?? null;
      const [{ deleted }] = await prisma.$queryRaw<[{ deleted: number }]>`
        WITH gone AS (
          DELETE FROM oauth_applications
          WHERE id = ${BigInt(id)} AND (${token}::text IS NULL OR registration_access_token = ${token}::text)
          RETURNING uid
        ),
        served AS (UPDATE oauth_resources SET server_client_id = NULL, updated_at = now() WHERE server_client_id IN (SELECT uid FROM gone) RETURNING id)
        SELECT count(*)::int AS deleted FROM gone`;
      return deleted > 0;
    },
  };
}
