import type { AccessGrantStore, NewAccessGrant } from '../oauth/store.js';
import { timestamp, toAccessGrant, type AccessGrantRow } from './rows.js';
import type { SqlClient } from './sql-client.js';

const COLUMNS = `id, application_id, resource_owner_id, token, expires_in, redirect_uri, scopes, created_at, revoked_at,
  code_challenge, code_challenge_method`;

export function accessGrantRepository(sql: SqlClient): AccessGrantStore {
  return {
    async create(grant: NewAccessGrant) {
      const rows = await sql.query<AccessGrantRow>(
        `INSERT INTO oauth_access_grants (application_id, resource_owner_id, token, expires_in, redirect_uri, scopes,
           created_at, code_challenge, code_challenge_method)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
        [
          grant.applicationId,
          grant.resourceOwnerId,
          grant.token,
          grant.expiresIn,
          grant.redirectUri,
          grant.scopes.join(' '),
          timestamp(grant.createdAt),
          grant.codeChallenge,
          grant.codeChallengeMethod,
        ],
      );
      return toAccessGrant(rows[0]!);
    },
    async findByToken(token) {
      const rows = await sql.query<AccessGrantRow>(
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
