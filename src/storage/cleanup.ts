import type { Database } from './database.js';
import { timestamp } from './rows.js';

// Stale-record cleanup (reference section 18, SPEC 2): hard DELETEs in bounded batches, each batch its own
// short autocommitted statement, so no lock is held for long even on tables of tens of millions of rows.
// Batches walk the index of the rule's time column in (column, id) order and resume after the last row of
// the previous batch (keyset), so each row is read once however many batches there are: with a plain
// `ORDER BY id LIMIT n` PostgreSQL picks the revoked_at or created_at index and re-reads every matching
// row, kept ones included, for every batch, which grows with the square of the table on tens of millions
// of rows.
// The kinds are disjoint (an unrevoked row can only be "expired", a revoked one only "revoked") and none
// depends on another having run, so a dry run counts every row once, exactly as a real run deletes it.

export const CLEANUP_KINDS = ['expired_tokens', 'expired_refresh_tokens', 'revoked_tokens', 'revoked_grants', 'expired_grants'] as const;
export type CleanupKind = (typeof CLEANUP_KINDS)[number];

export interface CleanupOptions {
  now: Date;
  batchSize: number;
  /** refreshTokens.graceSeconds: a retried refresh must still find its rotated row. */
  graceSeconds: number;
  /** refreshTokens.expiresIn; null = refresh tokens never expire, so no token is "refresh-expired". */
  refreshTokenExpiresIn: number | null;
  /** authorizationCodeExpiresIn: how long a used or expired code is kept to recognise its replay. */
  authorizationCodeExpiresIn: number;
  /** Count what would be deleted, delete nothing. */
  dryRun?: boolean;
  /** Called after each batch (progress for long runs, and tests). */
  onBatch?: (kind: CleanupKind, rows: number) => void;
}

export interface CleanupResult {
  deleted: Record<CleanupKind, number>;
  total: number;
}

/** A revoked row is kept at least this long, even with graceSeconds 0 (requests in flight that just read it). */
export const MIN_REVOKED_MARGIN_SECONDS = 60;

interface Rule {
  table: 'oauth_access_tokens' | 'oauth_access_grants';
  /** The indexed time column the batches walk; never NULL for the rows of the rule. */
  order: 'revoked_at' | 'created_at';
  /** SQL condition on the row `t`; $1 and $2 are the keyset cursor, the batch size is appended last. */
  where: string;
  values: unknown[];
}

const secondsBefore = (now: Date, seconds: number) => timestamp(new Date(now.getTime() - seconds * 1000));

function rulesFor(options: CleanupOptions): Partial<Record<CleanupKind, Rule>> {
  const now = timestamp(options.now);
  const revokedCutoff = secondsBefore(options.now, Math.max(options.graceSeconds, MIN_REVOKED_MARGIN_SECONDS));
  const codeCutoff = secondsBefore(options.now, options.authorizationCodeExpiresIn);
  // Refresh tokens issued before this instant have expired (refreshTokens.expiresIn); null: they never do.
  const refreshCutoff = options.refreshTokenExpiresIn === null ? null : secondsBefore(options.now, options.refreshTokenExpiresIn);
  return {
    // Reference 18: an access token without a refresh token is useless once expired; non-expiring ones stay.
    expired_tokens: {
      table: 'oauth_access_tokens',
      order: 'created_at',
      where: `t.revoked_at IS NULL AND t.refresh_token IS NULL AND t.expires_in IS NOT NULL
        AND t.created_at + make_interval(secs => t.expires_in) < $3`,
      values: [now],
    },
    // The reference never removes tokens carrying a refresh token (it may still be usable). With
    // refreshTokens.expiresIn set, a pair whose access token and refresh token have both expired is dead.
    ...(refreshCutoff !== null && {
      expired_refresh_tokens: {
        table: 'oauth_access_tokens',
        order: 'created_at',
        where: `t.revoked_at IS NULL AND t.refresh_token IS NOT NULL AND t.expires_in IS NOT NULL
          AND t.created_at + make_interval(secs => t.expires_in) < $3 AND t.created_at < $4`,
        values: [now, refreshCutoff],
      },
    }),
    // A revoked row goes once it has been revoked for max(graceSeconds, 60) s (a retried refresh inside the
    // grace window must still find its rotated row to get the successor) AND no member of its refresh family
    // can still be used (unrevoked, with its access token or its refresh token unexpired): while one can, the
    // rotated predecessors are the evidence reuse detection needs (RFC 9700 section 4.14.2: presenting one
    // must revoke the usable member), so they stay. Once the whole family is revoked or dead, a replayed
    // token has nothing left to revoke. "Usable" is exactly "not matched by the two kinds above", so the
    // order of the kinds does not matter and a dry run counts what a real run deletes.
    revoked_tokens: {
      table: 'oauth_access_tokens',
      order: 'revoked_at',
      where: `t.revoked_at IS NOT NULL AND t.revoked_at < $3
        AND (t.refresh_family IS NULL OR NOT EXISTS (
          SELECT 1 FROM oauth_access_tokens live
          WHERE live.refresh_family = t.refresh_family AND (live.revoked_at IS NULL OR live.revoked_at > $4)
            AND (live.expires_in IS NULL OR live.created_at + make_interval(secs => live.expires_in) >= $4
              OR $5::timestamp IS NULL OR live.created_at >= $5::timestamp)))`,
      values: [revokedCutoff, now, refreshCutoff],
    },
    // RFC 6749 section 4.1.2: a code used twice should revoke the tokens issued from it, which needs the
    // grant row. A used (revoked) code is kept for authorizationCodeExpiresIn after its use, which covers the
    // rest of its lifetime; an unused one for that long after it expired. After that a replay is just an
    // unknown code (invalid_grant).
    revoked_grants: {
      table: 'oauth_access_grants',
      order: 'revoked_at',
      where: 't.revoked_at IS NOT NULL AND t.revoked_at < $3',
      values: [codeCutoff],
    },
    expired_grants: {
      table: 'oauth_access_grants',
      order: 'created_at',
      where: 't.revoked_at IS NULL AND t.created_at < $3 AND t.created_at + make_interval(secs => t.expires_in) < $3',
      values: [codeCutoff],
    },
  };
}

/** Deletes (or with dryRun counts) the stale rows of every kind, in the order of CLEANUP_KINDS. */
export async function cleanupStaleRecords(database: Database, options: CleanupOptions): Promise<CleanupResult> {
  if (!Number.isInteger(options.batchSize) || options.batchSize < 1) throw new RangeError('batchSize must be a positive integer');
  const deleted = Object.fromEntries(CLEANUP_KINDS.map((kind) => [kind, 0])) as Record<CleanupKind, number>;
  const rules = rulesFor(options);
  for (const kind of CLEANUP_KINDS) {
    const rule = rules[kind];
    if (rule) deleted[kind] = await runInBatches(database, kind, rule, options);
  }
  return { deleted, total: Object.values(deleted).reduce((sum, count) => sum + count, 0) };
}

async function runInBatches(database: Database, kind: CleanupKind, rule: Rule, options: CleanupOptions): Promise<number> {
  const { table, order } = rule;
  const select = (columns: string) => `SELECT ${columns} FROM ${table} t
    WHERE t.${order} >= $1 AND (t.${order} > $1 OR t.id > $2) AND ${rule.where}
    ORDER BY t.${order}, t.id LIMIT $${rule.values.length + 3}`;
  // The cursor travels as text: a JS Date would drop the microseconds of TIMESTAMP(6) and revisit rows.
  const text = options.dryRun
    ? select(`t.id, t.${order}::text AS after`)
    : `WITH batch AS (DELETE FROM ${table} WHERE id IN (${select('t.id')}) RETURNING id, ${order})
       SELECT id, ${order}::text AS after FROM batch ORDER BY ${order}, id`;
  let cursor: [string, number] = ['-infinity', 0];
  let total = 0;
  for (;;) {
    const rows = await database.sql.query<{ id: number; after: string }>(text, [...cursor, ...rule.values, options.batchSize]);
    total += rows.length;
    if (rows.length > 0) options.onBatch?.(kind, rows.length);
    if (rows.length < options.batchSize) return total;
    const last = rows[rows.length - 1]!;
    cursor = [last.after, Number(last.id)];
  }
}
