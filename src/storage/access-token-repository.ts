import type { AccessTokenRecord, AccessTokenStore, NewAccessToken } from '../oauth/store.js';
import { timestamp, toAccessToken, toApplication, type AccessTokenRow, type ApplicationRow } from './rows.js';
import type { SqlClient } from './sql-client.js';

// The hot path (introspection, token issue) runs these named statements, prepared once per connection.
const COLUMNS = `id, application_id, resource_owner_id, token, refresh_token, expires_in, scopes, created_at, revoked_at,
  previous_refresh_token, access_grant_id, refresh_family, refreshed_at`;

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
const INSERT = {
  name: 'access_token_insert',
  text: `INSERT INTO oauth_access_tokens (application_id, resource_owner_id, token, refresh_token, expires_in, scopes,
    created_at, previous_refresh_token, access_grant_id, refresh_family)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
};
const REVOKE = {
  name: 'access_token_revoke',
  text: 'UPDATE oauth_access_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
};
// Rotation in one statement, so one round trip instead of five (BEGIN, update, insert, COMMIT). The conditional
// update is the lock: of two concurrent refreshes exactly one sees the row unrotated, and the insert reads from
// the update's result, so the loser inserts nothing.
const ROTATE = {
  name: 'access_token_rotate',
  text: `WITH retired AS (
      UPDATE oauth_access_tokens SET refreshed_at = $12, revoked_at = COALESCE(revoked_at, $12)
      WHERE id = $11 AND refreshed_at IS NULL AND revoked_at IS NULL RETURNING id)
    INSERT INTO oauth_access_tokens (application_id, resource_owner_id, token, refresh_token, expires_in, scopes,
      created_at, previous_refresh_token, access_grant_id, refresh_family)
    SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 FROM retired RETURNING ${COLUMNS}`,
};

// previous_refresh_token has no index (Doorkeeper's schema has none, and every refresh would maintain one): a
// successor is found through its family, which it shares with its predecessor, so the lookup reads one family.
// Rows imported without a family (Doorkeeper's) can only be found by scanning. Unnamed, so planned at each
// use: a plan prepared while the table is small would keep a sequential scan as it grows.
const SUCCESSOR_IN_FAMILY = `SELECT ${COLUMNS} FROM oauth_access_tokens
  WHERE refresh_family = $2 AND previous_refresh_token = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`;
const SUCCESSOR_OF_UNFAMILIED = `SELECT ${COLUMNS} FROM oauth_access_tokens
  WHERE previous_refresh_token = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`;

export function accessTokenRepository(sql: SqlClient): AccessTokenStore {
  const one = (rows: AccessTokenRow[]): AccessTokenRecord | null => (rows[0] ? toAccessToken(rows[0]) : null);
  const count = async (text: string, values: unknown[]) => (await sql.query(text, values)).length;
  return {
    findByToken: async (token) => one(await sql.query<AccessTokenRow>(FIND_BY_TOKEN, [token])),
    findByTokens: async (tokens) => (tokens.length === 0 ? [] : (await sql.query<AccessTokenRow>(findByTokensStatement(tokens.length), tokens)).map(toAccessToken)),
    findByRefreshToken: async (refreshToken) => one(await sql.query<AccessTokenRow>(FIND_BY_REFRESH, [refreshToken])),
    create: async (input) => toAccessToken((await sql.query<AccessTokenRow>(INSERT, insertValues(input)))[0]!),
    revoke: async (id, at) => (await sql.query(REVOKE, [id, timestamp(at)])).length > 0,
    rotate: async (id, at, successor) => one(await sql.query<AccessTokenRow>(ROTATE, [...insertValues(successor), id, timestamp(at)])),
    async findSuccessor(previousRefreshToken, family) {
      if (family === null) return one(await sql.query<AccessTokenRow>(SUCCESSOR_OF_UNFAMILIED, [previousRefreshToken]));
      return one(await sql.query<AccessTokenRow>(SUCCESSOR_IN_FAMILY, [previousRefreshToken, family]));
    },
    revokeFamily: (family, at) =>
      count('UPDATE oauth_access_tokens SET revoked_at = $2 WHERE refresh_family = $1 AND revoked_at IS NULL RETURNING id', [
        family,
        timestamp(at),
      ]),
    revokeIssuedFromGrant: (grantId, at) =>
      count('UPDATE oauth_access_tokens SET revoked_at = $2 WHERE access_grant_id = $1 AND revoked_at IS NULL RETURNING id', [
        grantId,
        timestamp(at),
      ]),
    revokeAllFor: (applicationId, resourceOwnerId, at) =>
      count(
        `UPDATE oauth_access_tokens SET revoked_at = $3
         WHERE application_id = $1 AND resource_owner_id = $2 AND revoked_at IS NULL RETURNING id`,
        [applicationId, resourceOwnerId, timestamp(at)],
      ),
    revokeAllForOwner: (resourceOwnerId, at) =>
      count('UPDATE oauth_access_tokens SET revoked_at = $2 WHERE resource_owner_id = $1 AND revoked_at IS NULL RETURNING id', [
        resourceOwnerId,
        timestamp(at),
      ]),
    async findLiveMatching({ applicationId, resourceOwnerId, scopes, at, withRefreshToken }) {
      const rows = await sql.query<AccessTokenRow>(
        `SELECT ${COLUMNS} FROM oauth_access_tokens
         WHERE application_id = $1 AND resource_owner_id IS NOT DISTINCT FROM $2 AND revoked_at IS NULL
           AND (expires_in IS NULL OR created_at + make_interval(secs => expires_in) > $3)
         ORDER BY created_at DESC LIMIT 100`,
        [applicationId, resourceOwnerId, timestamp(at)],
      );
      const wanted = [...new Set(scopes)].sort().join(' ');
      const match = rows
        .map(toAccessToken)
        .find(
          (token) =>
            [...new Set(token.scopes)].sort().join(' ') === wanted &&
            (withRefreshToken === undefined || (token.refreshToken !== null) === withRefreshToken),
        );
      return match ?? null;
    },
    async authorizedApplications({ resourceOwnerId, at, refreshTokenExpiresIn }) {
      const rows = await sql.query<ApplicationRow & { authorized_at: Date }>(
        `SELECT a.id, a.name, a.uid, a.secret, a.redirect_uri, a.scopes, a.confidential, a.created_at, a.updated_at,
           MIN(t.created_at) AS authorized_at
         FROM oauth_access_tokens t JOIN oauth_applications a ON a.id = t.application_id
         WHERE t.resource_owner_id = $1 AND t.revoked_at IS NULL
           AND (t.expires_in IS NULL OR t.created_at + make_interval(secs => t.expires_in) > $2
             OR (t.refresh_token IS NOT NULL AND t.refreshed_at IS NULL
               AND ($3::integer IS NULL OR t.created_at + make_interval(secs => $3::integer) > $2)))
         GROUP BY a.id
         ORDER BY authorized_at DESC, a.id DESC`,
        [resourceOwnerId, timestamp(at), refreshTokenExpiresIn],
      );
      return rows.map((row) => ({ application: toApplication(row), authorizedAt: row.authorized_at }));
    },
  };
}

function insertValues(input: NewAccessToken): unknown[] {
  return [
    input.applicationId,
    input.resourceOwnerId,
    input.token,
    input.refreshToken,
    input.expiresIn,
    input.scopes.join(' '),
    timestamp(input.createdAt),
    input.previousRefreshToken ?? '',
    input.accessGrantId,
    input.refreshFamily,
  ];
}
