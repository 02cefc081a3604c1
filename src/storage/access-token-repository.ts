import { actorClaimJson, storedActorClaim } from '../oauth/exchange/actor-claim.js';
import { claimsRequestJson, storedClaimsRequest } from '../oauth/openid/claims-request.js';
import { detailsJson, storedDetails } from '../oauth/resources/authorization-details.js';
import type { AccessTokenRecord, AccessTokenStore, NewAccessToken } from '../oauth/store.js';
import { storing } from './prisma-errors.js';
import { toApplication } from './application-repository.js';
import { Prisma, type OauthAccessToken, type OauthApplication } from './generated/browser.js';
import { columnOf, insertedFields, joinedOrNull, selectList, splitList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// oauth_access_tokens, all raw SQL: the hot path (introspection, token issue, refresh rotation) runs these
// named statements, prepared once per connection.
const COLUMNS = selectList(Prisma.OauthAccessTokenScalarFieldEnum);

const numberOrNull = (value: bigint | number | null) => (value === null ? null : Number(value));

/**
 * The table's one mapper: every column is its record field as it is, but the ids and the scopes. Field by field,
 * not a rest spread: it runs on every introspection, and V8's rest and spread copies cost it ~4 µs per row.
 */
const toAccessToken = (row: Row<OauthAccessToken>): AccessTokenRecord => ({
  id: Number(row.id),
  applicationId: numberOrNull(row.applicationId),
  resourceOwnerId: numberOrNull(row.resourceOwnerId),
  token: row.token,
  refreshToken: row.refreshToken,
  expiresIn: row.expiresIn,
  scopes: splitList(row.scopes),
  createdAt: row.createdAt,
  revokedAt: row.revokedAt,
  previousRefreshToken: row.previousRefreshToken,
  accessGrantId: numberOrNull(row.accessGrantId),
  refreshFamily: row.refreshFamily,
  refreshedAt: row.refreshedAt,
  authTime: row.authTime,
  sessionId: row.sessionId,
  amr: splitList(row.amr),
  acr: row.acr,
  audience: splitList(row.audience),
  dpopJkt: row.dpopJkt,
  claims: storedClaimsRequest(row.claims),
  act: storedActorClaim(row.act),
  authorizationDetails: storedDetails(row.authorizationDetails),
});

// The newest live tokens of one client and owner (findLiveMatching), on every authorization of a confidential client.
// Unnamed, unlike the lookups by a unique key: PostgreSQL plans it with its values each time, and the best way to a
// client's rows (its index, or the newest tokens first) depends on how many it has; a prepared statement's generic
// plan would pick one way for every client.
const LIVE = `SELECT ${COLUMNS} FROM oauth_access_tokens
  WHERE application_id = $1 AND resource_owner_id IS NOT DISTINCT FROM $2 AND revoked_at IS NULL
    AND (expires_in IS NULL OR created_at + make_interval(secs => expires_in) > $3)
  ORDER BY created_at DESC LIMIT 100`;

// A transaction-scoped advisory lock per application (AccessTokenStore.lockIssuance), in the two-key space no other
// lock of the service uses: the first key says whose lock it is; ids beyond 32 bits share a lock with another client,
// which only makes them wait for each other.
const LOCK_ISSUANCE = {
  name: 'access_token_lock_issuance',
  text: 'SELECT pg_advisory_xact_lock(7233906, ($1::bigint % 2147483647)::integer)',
};

// A token of t that still authorizes its application (the owner's authorized applications): not revoked, and its
// access token unexpired or its refresh token still usable. $2 is now, $3 refreshTokens.expiresIn (null: never).
const AUTHORIZES = `t.revoked_at IS NULL
  AND (t.expires_in IS NULL OR t.created_at + make_interval(secs => t.expires_in) > $2
    OR (t.refresh_token IS NOT NULL AND t.refreshed_at IS NULL
      AND ($3::integer IS NULL OR t.created_at + make_interval(secs => $3::integer) > $2)))`;

// A new row: the database numbers it; it is revoked and rotated later.
const INSERTED = insertedFields(Prisma.OauthAccessTokenScalarFieldEnum, ['id', 'revokedAt', 'refreshedAt']);
const INSERTED_COLUMNS = INSERTED.map(columnOf).join(', ');
const PLACEHOLDERS = INSERTED.map((_, i) => `$${i + 1}`).join(', ');

/**
 * The row an INSERT of `input` writes, as the table then holds it and toAccessToken reads it (its id is the
 * database's, set once known). Both the INSERT's values and the new record come from it: one list of the columns
 * a new token has, field by field rather than spread (a spread followed by more fields costs V8 microseconds).
 */
const newRow = (input: NewAccessToken): Row<OauthAccessToken> => ({
  id: 0,
  applicationId: input.applicationId,
  resourceOwnerId: input.resourceOwnerId,
  token: input.token,
  refreshToken: input.refreshToken,
  expiresIn: input.expiresIn,
  scopes: input.scopes.join(' '),
  createdAt: new Date(input.createdAt.getTime()),
  revokedAt: null,
  previousRefreshToken: input.previousRefreshToken ?? '',
  accessGrantId: input.accessGrantId,
  refreshFamily: input.refreshFamily,
  refreshedAt: null,
  authTime: input.authTime ? new Date(input.authTime.getTime()) : null,
  sessionId: input.sessionId ?? null,
  amr: joinedOrNull(input.amr),
  acr: input.acr ?? null,
  audience: joinedOrNull(input.audience),
  dpopJkt: input.dpopJkt ?? null,
  claims: input.claims ? claimsRequestJson(input.claims) : null,
  act: input.act ? actorClaimJson(input.act) : null,
  authorizationDetails: detailsJson(input.authorizationDetails ?? []),
});
const insertValues = (row: Row<OauthAccessToken>): unknown[] =>
  INSERTED.map((field) => {
    const value = row[field];
    return value instanceof Date ? timestamp(value) : (value ?? null);
  });

const FIND_BY_TOKEN = { name: 'access_token_by_token', text: `SELECT ${COLUMNS} FROM oauth_access_tokens WHERE token = $1` };
// One equality lookup per value, not `token = ANY($1)`: on a young table without statistics PostgreSQL plans
// ANY as a sequential scan, and a prepared statement keeps that generic plan as the table grows (measured:
// Bearer introspection at a third of its speed). An equality on the unique index is always an index scan.
const findByTokensStatements = new Map<number, { name: string; text: string }>();
function findByTokensStatement(count: number): { name: string; text: string } {
  let statement = findByTokensStatements.get(count);
  if (!statement) {
    const lookups = Array.from({ length: count }, (_, i) => `(SELECT ${COLUMNS} FROM oauth_access_tokens WHERE token = $${i + 1})`);
    statement = { name: `access_tokens_by_${count}_tokens`, text: lookups.join(' UNION ALL ') };
    findByTokensStatements.set(count, statement);
  }
  return statement;
}
const FIND_BY_REFRESH = {
  name: 'access_token_by_refresh_token',
  text: `SELECT ${COLUMNS} FROM oauth_access_tokens WHERE refresh_token = $1`,
};
// The new row is read back as its id only: every other column is a value this service just wrote (or NULL), so
// the record is built from them as toAccessToken would read them (a full RETURNING cost token issue ~20 µs of
// CPU per request in pg's row description and parsing: bench/RESULTS.md, issue 21).
const INSERT = {
  name: 'access_token_insert',
  text: `INSERT INTO oauth_access_tokens (${INSERTED_COLUMNS}) VALUES (${PLACEHOLDERS}) RETURNING id`,
};
// Several new rows in one statement (coalesced-token-writes.ts): each row's id comes back with its token, which the
// unique index makes a key, rather than trusting RETURNING to keep the order of VALUES.
const insertManyStatements = new Map<number, { name: string; text: string }>();
function insertManyStatement(count: number): { name: string; text: string } {
  let statement = insertManyStatements.get(count);
  if (!statement) {
    const rows = Array.from({ length: count }, (_, row) => `(${INSERTED.map((_, i) => `$${row * INSERTED.length + i + 1}`).join(', ')})`);
    statement = {
      name: `access_token_insert_${count}`,
      text: `INSERT INTO oauth_access_tokens (${INSERTED_COLUMNS}) VALUES ${rows.join(', ')} RETURNING id, token`,
    };
    insertManyStatements.set(count, statement);
  }
  return statement;
}
const REVOKE = {
  name: 'access_token_revoke',
  text: 'UPDATE oauth_access_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
};
// A new row inserted from a conditional UPDATE's result, in one statement: the update is the lock, so of concurrent
// requests exactly one sees its row as the condition wants it, and the others' inserts have nothing to read. The
// updated row's id and the instant follow the new row's values.
const [UPDATED_ID, AT] = [`$${INSERTED.length + 1}`, `$${INSERTED.length + 2}`];
const insertAfter = (update: string, returning: string) => `WITH updated AS (${update} RETURNING id)
    INSERT INTO oauth_access_tokens (${INSERTED_COLUMNS}) SELECT ${PLACEHOLDERS} FROM updated RETURNING ${returning}`;
// Rotation: one round trip instead of five (BEGIN, update, insert, COMMIT); the retired token is the updated row.
const ROTATE = {
  name: 'access_token_rotate',
  text: insertAfter(
    `UPDATE oauth_access_tokens SET refreshed_at = ${AT}, revoked_at = COALESCE(revoked_at, ${AT})
      WHERE id = ${UPDATED_ID} AND refreshed_at IS NULL AND revoked_at IS NULL`,
    COLUMNS,
  ),
};
// A code's exchange where no option adds to it (grants/authorization-code.ts): one round trip instead of four. The
// code's conditional revocation lets exactly one of several concurrent exchanges win (SPEC 3.1).
const CREATE_FOR_CODE = {
  name: 'access_token_for_code',
  text: insertAfter(`UPDATE oauth_access_grants SET revoked_at = ${AT} WHERE id = ${UPDATED_ID} AND revoked_at IS NULL`, 'id'),
};

// previous_refresh_token has no index (Doorkeeper's schema has none, and every refresh would maintain one): a
// successor is found through its family, which it shares with its predecessor, so the lookup reads one family.
// Rows imported without a family (Doorkeeper's) can only be found by scanning. Unnamed, so planned at each
// use: a plan prepared while the table is small would keep a sequential scan as it grows.
const SUCCESSOR_IN_FAMILY = `SELECT ${COLUMNS} FROM oauth_access_tokens
  WHERE refresh_family = $2 AND previous_refresh_token = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`;
const SUCCESSOR_OF_UNFAMILIED = `SELECT ${COLUMNS} FROM oauth_access_tokens
  WHERE previous_refresh_token = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`;

// The applications an owner has authorized, read in one join (`a` is oauth_applications).
const APPLICATION_COLUMNS_OF_A = selectList(Prisma.OauthApplicationScalarFieldEnum, 'a');

/** The table's store, and the write only storage uses: several tokens inserted in one statement. */
export interface AccessTokenRepository extends AccessTokenStore {
  createMany(inputs: readonly NewAccessToken[]): Promise<AccessTokenRecord[]>;
}

export function accessTokenRepository(sql: SqlClient): AccessTokenRepository {
  const one = (rows: Row<OauthAccessToken>[]): AccessTokenRecord | null => (rows[0] ? toAccessToken(rows[0]) : null);
  const count = async (text: string, values: unknown[]) => (await sql.query(text, values)).length;
  // Under READ COMMITTED an UPDATE sees the rows of the snapshot it started with: a successor inserted by a rotation
  // that commits while this statement waits for its predecessor's row lock is not among them, and would stay live (a
  // family revoked for reuse, a user disabled, mid-refresh). The second statement's snapshot is taken after that
  // commit: it revokes the successor. A rotation that starts after the first finds its predecessor revoked.
  const revokeAllOf = async (text: string, values: unknown[]) => (await count(text, values)) + (await count(text, values));
  /** Inserts `input` (its values, then `after`), returning id only; null when the statement inserted nothing. */
  const insertOne = async (statement: { name: string; text: string }, input: NewAccessToken, ...after: unknown[]) => {
    const row = newRow(input);
    const [inserted] = await storing(() => sql.query<Pick<Row<OauthAccessToken>, 'id'>>(statement, [...insertValues(row), ...after]));
    if (!inserted) return null;
    row.id = inserted.id;
    return toAccessToken(row);
  };
  return {
    findByToken: async (token) => one(await sql.query<Row<OauthAccessToken>>(FIND_BY_TOKEN, [token])),
    findByTokens: async (tokens) =>
      tokens.length === 0 ? [] : (await sql.query<Row<OauthAccessToken>>(findByTokensStatement(tokens.length), tokens)).map(toAccessToken),
    findByRefreshToken: async (refreshToken) => one(await sql.query<Row<OauthAccessToken>>(FIND_BY_REFRESH, [refreshToken])),
    create: async (input) => (await insertOne(INSERT, input))!,
    async createMany(inputs) {
      const rows = inputs.map(newRow);
      const inserted = await storing(() =>
        sql.query<Pick<Row<OauthAccessToken>, 'id' | 'token'>>(insertManyStatement(inputs.length), rows.flatMap(insertValues)),
      );
      const ids = new Map(inserted.map((row) => [row.token, row.id]));
      return rows.map((row) => {
        row.id = ids.get(row.token)!;
        return toAccessToken(row);
      });
    },
    revoke: async (id, at) => (await sql.query(REVOKE, [id, timestamp(at)])).length > 0,
    async lockIssuance(applicationId) {
      await sql.query(LOCK_ISSUANCE, [applicationId]);
    },
    rotate: async (id, at, successor) =>
      one(await storing(() => sql.query<Row<OauthAccessToken>>(ROTATE, [...insertValues(newRow(successor)), id, timestamp(at)]))),
    createForCode: (grantId, at, token) => insertOne(CREATE_FOR_CODE, token, grantId, timestamp(at)),
    async findSuccessor(previousRefreshToken, family) {
      if (family === null) return one(await sql.query<Row<OauthAccessToken>>(SUCCESSOR_OF_UNFAMILIED, [previousRefreshToken]));
      return one(await sql.query<Row<OauthAccessToken>>(SUCCESSOR_IN_FAMILY, [previousRefreshToken, family]));
    },
    revokeFamily: (family, at) =>
      revokeAllOf('UPDATE oauth_access_tokens SET revoked_at = $2 WHERE refresh_family = $1 AND revoked_at IS NULL RETURNING id', [
        family,
        timestamp(at),
      ]),
    revokeIssuedFromGrant: (grantId, at) =>
      count('UPDATE oauth_access_tokens SET revoked_at = $2 WHERE access_grant_id = $1 AND revoked_at IS NULL RETURNING id', [
        grantId,
        timestamp(at),
      ]),
    revokeAllFor: (applicationId, resourceOwnerId, at) =>
      revokeAllOf(
        `UPDATE oauth_access_tokens SET revoked_at = $3
         WHERE application_id = $1 AND resource_owner_id = $2 AND revoked_at IS NULL RETURNING id`,
        [applicationId, resourceOwnerId, timestamp(at)],
      ),
    revokeAllForOwner: (resourceOwnerId, at) =>
      revokeAllOf('UPDATE oauth_access_tokens SET revoked_at = $2 WHERE resource_owner_id = $1 AND revoked_at IS NULL RETURNING id', [
        resourceOwnerId,
        timestamp(at),
      ]),
    async findLiveMatching({ applicationId, resourceOwnerId, scopes, at, withRefreshToken, audience, dpopJkt }) {
      const rows = await sql.query<Row<OauthAccessToken>>(LIVE, [applicationId, resourceOwnerId, timestamp(at)]);
      const wanted = [...new Set(scopes)].sort().join(' ');
      const wantedAudience = audience === undefined ? undefined : [...new Set(audience)].sort().join(' ');
      const match = rows
        .map(toAccessToken)
        .find(
          (token) =>
            [...new Set(token.scopes)].sort().join(' ') === wanted &&
            (withRefreshToken === undefined || (token.refreshToken !== null) === withRefreshToken) &&
            (wantedAudience === undefined || [...new Set(token.audience)].sort().join(' ') === wantedAudience) &&
            (dpopJkt === undefined || token.dpopJkt === dpopJkt),
        );
      return match ?? null;
    },
    async authorizedApplications({ resourceOwnerId, at, refreshTokenExpiresIn }) {
      const rows = await sql.query<Row<OauthApplication> & { authorized_at: Date }>(
        `SELECT ${APPLICATION_COLUMNS_OF_A}, MIN(t.created_at) AS authorized_at
         FROM oauth_access_tokens t JOIN oauth_applications a ON a.id = t.application_id
         WHERE t.resource_owner_id = $1 AND ${AUTHORIZES}
         GROUP BY a.id
         ORDER BY authorized_at DESC, a.id DESC`,
        [resourceOwnerId, timestamp(at), refreshTokenExpiresIn],
      );
      return rows.map(({ authorized_at, ...row }) => ({ application: toApplication(row), authorizedAt: authorized_at }));
    },
    async authorizedScopes({ applicationId, resourceOwnerId, at, refreshTokenExpiresIn }) {
      const rows = await sql.query<{ scopes: string | null }>(
        `SELECT DISTINCT t.scopes FROM oauth_access_tokens t
         WHERE t.resource_owner_id = $1 AND ${AUTHORIZES} AND t.application_id = $4`,
        [resourceOwnerId, timestamp(at), refreshTokenExpiresIn, applicationId],
      );
      return rows.length === 0 ? null : [...new Set(rows.flatMap((row) => splitList(row.scopes)))];
    },
  };
}
