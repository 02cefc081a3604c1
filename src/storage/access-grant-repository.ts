import { claimsRequestJson, storedClaimsRequest } from '../oauth/openid/claims-request.js';
import { detailsJson, storedDetails } from '../oauth/resources/authorization-details.js';
import type { AccessGrantRecord, AccessGrantStore, NewAccessGrant } from '../oauth/store.js';
import { Prisma, type OauthAccessGrant } from './generated/browser.js';
import { columnOf, insertedFields, joinedOrNull, selectList, splitList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';
import { storing } from './prisma-errors.js';

// oauth_access_grants (authorization codes): issued, exchanged and consumed on the hot path, all raw SQL.

const COLUMNS = selectList(Prisma.OauthAccessGrantScalarFieldEnum);

/** The table's one mapper: every column is its record field as it is, but the ids and the scopes. */
const toAccessGrant = ({
  id,
  applicationId,
  resourceOwnerId,
  scopes,
  audience,
  claims,
  amr,
  authorizationDetails,
  ...columns
}: Row<OauthAccessGrant>): AccessGrantRecord => ({
  ...columns,
  id: Number(id),
  applicationId: Number(applicationId),
  resourceOwnerId: Number(resourceOwnerId),
  scopes: splitList(scopes),
  audience: splitList(audience),
  claims: storedClaimsRequest(claims),
  amr: splitList(amr),
  authorizationDetails: storedDetails(authorizationDetails),
});

const INSERTED = insertedFields(Prisma.OauthAccessGrantScalarFieldEnum, ['id', 'revokedAt']);
const INSERT = {
  name: 'access_grant_insert',
  text: `INSERT INTO oauth_access_grants (${INSERTED.map(columnOf).join(', ')})
    VALUES (${INSERTED.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING ${COLUMNS}`,
};
const insertValues = (grant: NewAccessGrant) => {
  const columns: Record<string, unknown> = {
    ...grant,
    scopes: grant.scopes.join(' '),
    createdAt: timestamp(grant.createdAt),
    authTime: grant.authTime ? timestamp(grant.authTime) : null,
    audience: joinedOrNull(grant.audience),
    amr: joinedOrNull(grant.amr),
    claims: grant.claims ? claimsRequestJson(grant.claims) : null,
    authorizationDetails: detailsJson(grant.authorizationDetails ?? []),
  };
  return INSERTED.map((field) => columns[field] ?? null);
};

export function accessGrantRepository(sql: SqlClient): AccessGrantStore {
  return {
    async create(grant) {
      return toAccessGrant((await storing(() => sql.query<Row<OauthAccessGrant>>(INSERT, insertValues(grant))))[0]!);
    },
    async findByToken(token) {
      const rows = await sql.query<Row<OauthAccessGrant>>(
        { name: 'access_grant_by_token', text: `SELECT ${COLUMNS} FROM oauth_access_grants WHERE token = $1` },
        [token],
      );
      return rows[0] ? toAccessGrant(rows[0]) : null;
    },
    // RFC 6749 section 4.1.2: a code is used once; the conditional update lets exactly one exchange win.
    async consume(id, at) {
      const rows = await sql.query(
        {
          name: 'access_grant_consume',
          text: 'UPDATE oauth_access_grants SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
        },
        [id, timestamp(at)],
      );
      return rows.length > 0;
    },
    async revokeAllFor(applicationId, resourceOwnerId, at) {
      const rows = await sql.query(
        `UPDATE oauth_access_grants SET revoked_at = $3
         WHERE application_id = $1 AND resource_owner_id = $2 AND revoked_at IS NULL RETURNING id`,
        [applicationId, resourceOwnerId, timestamp(at)],
      );
      return rows.length;
    },
    async revokeAllForOwner(resourceOwnerId, at) {
      const rows = await sql.query(
        'UPDATE oauth_access_grants SET revoked_at = $2 WHERE resource_owner_id = $1 AND revoked_at IS NULL RETURNING id',
        [resourceOwnerId, timestamp(at)],
      );
      return rows.length;
    },
  };
}
