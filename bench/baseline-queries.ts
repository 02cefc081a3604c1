import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import pg from 'pg';

// The baseline's SQL: the lookups each endpoint needs, as named statements that PostgreSQL prepares once per
// connection. Token lookups join the application for client_id, so every endpoint is one round trip per
// lookup; the service instead caches applications in process.

// Same conventions as the service's rows: BIGINT as numbers, TIMESTAMP columns hold UTC wall time.
pg.types.setTypeParser(20, Number);
pg.types.setTypeParser(1114, (value: string) => new Date(`${value.replace(' ', 'T')}Z`));

export interface ApplicationRow {
  id: number;
  uid: string;
  secret: string | null;
  confidential: boolean;
}

export interface TokenRow {
  id: number;
  application_id: number | null;
  resource_owner_id: number | null;
  refresh_token: string | null;
  expires_in: number | null;
  scopes: string | null;
  created_at: Date;
  revoked_at: Date | null;
  refreshed_at: Date | null;
  refresh_family: string | null;
  client_id: string | null;
}

const TOKEN_COLUMNS = `t.id, t.application_id, t.resource_owner_id, t.refresh_token, t.expires_in, t.scopes, t.created_at,
  t.revoked_at, t.refreshed_at, t.refresh_family, a.uid AS client_id`;

export const Q = {
  applicationByUid: { name: 'baseline_app_by_uid', text: 'SELECT id, uid, secret, confidential FROM oauth_applications WHERE uid = $1' },
  tokenByToken: {
    name: 'baseline_token',
    text: `SELECT ${TOKEN_COLUMNS} FROM oauth_access_tokens t LEFT JOIN oauth_applications a ON a.id = t.application_id WHERE t.token = $1`,
  },
  tokensByTokens: {
    name: 'baseline_tokens',
    text: `SELECT ${TOKEN_COLUMNS}, t.token FROM oauth_access_tokens t LEFT JOIN oauth_applications a ON a.id = t.application_id
      WHERE t.token = $1 UNION ALL SELECT ${TOKEN_COLUMNS}, t.token FROM oauth_access_tokens t
      LEFT JOIN oauth_applications a ON a.id = t.application_id WHERE t.token = $2`,
  },
  tokenByRefresh: {
    name: 'baseline_refresh',
    text: `SELECT ${TOKEN_COLUMNS} FROM oauth_access_tokens t LEFT JOIN oauth_applications a ON a.id = t.application_id WHERE t.refresh_token = $1`,
  },
  insertToken: {
    name: 'baseline_insert',
    text: `INSERT INTO oauth_access_tokens (application_id, resource_owner_id, token, refresh_token, expires_in, scopes, created_at,
      previous_refresh_token, refresh_family) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
  },
  // The service's rotation: the conditional update decides which of two concurrent refreshes wins, and the
  // successor is inserted from its result, in one statement.
  rotate: {
    name: 'baseline_rotate',
    text: `WITH retired AS (UPDATE oauth_access_tokens SET refreshed_at = $10, revoked_at = COALESCE(revoked_at, $10)
      WHERE id = $11 AND refreshed_at IS NULL AND revoked_at IS NULL RETURNING id)
      INSERT INTO oauth_access_tokens (application_id, resource_owner_id, token, refresh_token, expires_in, scopes, created_at,
      previous_refresh_token, refresh_family) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM retired RETURNING id`,
  },
};

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
export const newSecret = () => randomBytes(32).toString('base64url');

export function sameSecret(presented: string, storedHash: string | null): boolean {
  if (storedHash === null) return false;
  const a = Buffer.from(sha256(presented));
  const b = Buffer.from(storedHash);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** RFC 6749 section 2.3.1: Basic credentials, form-decoded. */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  if (!header || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString();
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
}

export const bearer = (header: string | undefined) => (header && /^bearer /i.test(header) ? header.slice(7).trim() : null);

export async function one<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  query: { name: string; text: string },
  values: unknown[],
): Promise<Row | null> {
  const { rows } = await pool.query<Row>({ ...query, values });
  return rows[0] ?? null;
}

export const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function isLiveAccess(row: TokenRow, now: number): boolean {
  return row.revoked_at === null && (row.expires_in === null || now < row.created_at.getTime() + row.expires_in * 1000);
}

export const isLiveRefresh = (row: TokenRow) => row.refresh_token !== null && row.revoked_at === null && row.refreshed_at === null;
