import type { Database } from './database.js';
import { timestamp } from './rows.js';

// Stale-record cleanup (reference section 18, SPEC 2): hard DELETEs in bounded batches, each batch its own
// short autocommitted statement, so no lock is held for long even on tables of tens of millions of rows.
// A batch is a window of the index of the rule's time column: the next `batchSize` rows in (column, id) order
// after the previous window (keyset), whatever they are; the rule's condition then picks which of them go.
// So a statement never reads more than `batchSize` index entries, even where the rows still to delete are
// few and far between: live tokens, or the rotated tokens of live refresh families, can fill most of the
// index and a "next n matching rows" query would read all of them in one statement (measured: 3.3 s on 1M
// live rows). Each row is read once per run. The walk stops at the rule's bound on the column (nothing
// after it can match) or at the end of the index.
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
  /** Called after each batch that deleted rows (progress for long runs, and tests). */
  onBatch?: (kind: CleanupKind, rows: number) => void;
  /** Called after every window of the index: how many rows it read (never more than batchSize) and deleted. */
  onWindow?: (kind: CleanupKind, scanned: number, deleted: number) => void;
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
  /** No row of the rule has `order` at or after this instant: the walk ends there. */
  before: string;
  /** SQL condition on the row `t`; $1 and $2 are the keyset cursor, $3 the bound, $4 the batch size, `values` $5 on. */
  where: string;
  values: unknown[];
}

const secondsBefore = (now: Date, seconds: number) => timestamp(new Date(now.getTime() - seconds * 1000));

/** Whether the refresh family of row `t` has a member that can still be used: unrevoked, and unexpired as an access or a refresh token. */
const usableFamilyMember = (now: string, refreshCutoff: string) => `EXISTS (
  SELECT 1 FROM oauth_access_tokens live
  WHERE live.refresh_family = t.refresh_family AND (live.revoked_at IS NULL OR live.revoked_at > ${now})
    AND (live.expires_in IS NULL OR live.created_at + make_interval(secs => live.expires_in) >= ${now}
      OR ${refreshCutoff}::timestamp IS NULL OR live.created_at >= ${refreshCutoff}::timestamp))`;

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
      before: now,
      where: `t.revoked_at IS NULL AND t.refresh_token IS NULL AND t.expires_in IS NOT NULL
        AND t.created_at + make_interval(secs => t.expires_in) < $5`,
      values: [now],
    },
    // The reference never removes tokens carrying a refresh token (it may still be usable). With
    // refreshTokens.expiresIn set, a pair whose access token and refresh token have both expired is dead.
    ...(refreshCutoff !== null && {
      expired_refresh_tokens: {
        table: 'oauth_access_tokens',
        order: 'created_at',
        before: refreshCutoff,
        where: `t.revoked_at IS NULL AND t.refresh_token IS NOT NULL AND t.expires_in IS NOT NULL
          AND t.created_at + make_interval(secs => t.expires_in) < $5`,
        values: [now],
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
      before: revokedCutoff,
      where: `(t.refresh_family IS NULL OR NOT ${usableFamilyMember('$5', '$6')})`,
      values: [now, refreshCutoff],
    },
    // RFC 6749 section 4.1.2: a code used twice should revoke the tokens issued from it, which needs the
    // grant row. A used (revoked) code is kept for authorizationCodeExpiresIn after its use, which covers the
    // rest of its lifetime; an unused one for that long after it expired. After that a replay is just an
    // unknown code (invalid_grant).
    revoked_grants: {
      table: 'oauth_access_grants',
      order: 'revoked_at',
      before: codeCutoff,
      where: 'TRUE',
      values: [],
    },
    expired_grants: {
      table: 'oauth_access_grants',
      order: 'created_at',
      before: codeCutoff,
      where: 't.revoked_at IS NULL AND t.created_at + make_interval(secs => t.expires_in) < $5',
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
  // One window: the next rows of the index after the cursor (all of them, matching or not), then the
  // matching ones among them deleted (or counted). The window's last row is the next cursor; a window
  // shorter than the batch size is the end of the walk. The cursor travels as text: a JS Date would drop
  // the microseconds of TIMESTAMP(6) and revisit rows.
  const affected = options.dryRun
    ? `SELECT t.id FROM ${table} t JOIN scanned s ON s.id = t.id WHERE ${rule.where}`
    : `DELETE FROM ${table} t USING scanned s WHERE t.id = s.id AND ${rule.where} RETURNING t.id`;
  const text = `WITH scanned AS MATERIALIZED (
      SELECT t.id, t.${order} AS at FROM ${table} t
      WHERE t.${order} >= $1 AND (t.${order} > $1 OR t.id > $2) AND t.${order} < $3
      ORDER BY t.${order}, t.id LIMIT $4),
    affected AS (${affected}),
    last AS (SELECT at::text AS at, id FROM scanned ORDER BY scanned.at DESC, id DESC LIMIT 1)
    SELECT (SELECT count(*)::int FROM scanned) AS scanned, (SELECT count(*)::int FROM affected) AS affected,
      (SELECT at FROM last) AS after_at, (SELECT id FROM last) AS after_id`;
  let cursor: [string, number] = ['-infinity', 0];
  let total = 0;
  for (;;) {
    const [window] = await database.sql.query<{ scanned: number; affected: number; after_at: string | null; after_id: number | null }>(text, [
      ...cursor,
      rule.before,
      options.batchSize,
      ...rule.values,
    ]);
    const { scanned, affected: deleted, after_at, after_id } = window!;
    total += deleted;
    options.onWindow?.(kind, scanned, deleted);
    if (deleted > 0) options.onBatch?.(kind, deleted);
    if (scanned < options.batchSize || after_at === null || after_id === null) return total;
    cursor = [after_at, Number(after_id)];
  }
}

/** What a run keeps on purpose although it is revoked or expired: the margins of the rules above, counted. */
export interface KeptRecords {
  /** max(refreshTokens.graceSeconds, MIN_REVOKED_MARGIN_SECONDS): how long a revoked token is kept at least. */
  revoked_margin_seconds: number;
  /** Tokens revoked within that margin (requests in flight may still read them; a retried refresh gets its successor). */
  revoked_within_margin: number;
  /** Tokens revoked longer ago whose refresh family still has a usable member (reuse detection needs them). */
  revoked_for_reuse_detection: number;
  /** Codes used, or expired unused, within authorizationCodeExpiresIn (a replay must still revoke what it issued). */
  codes_for_replay_detection: number;
}

/** Counts what cleanupStaleRecords keeps on purpose (for --dry-run): the complement of its rules, within the stale rows. */
export async function countKeptRecords(database: Database, options: Omit<CleanupOptions, 'batchSize'>): Promise<KeptRecords> {
  const margin = Math.max(options.graceSeconds, MIN_REVOKED_MARGIN_SECONDS);
  const refreshCutoff = options.refreshTokenExpiresIn === null ? null : secondsBefore(options.now, options.refreshTokenExpiresIn);
  const [row] = await database.sql.query<Omit<KeptRecords, 'revoked_margin_seconds'>>(
    `SELECT
      (SELECT count(*)::int FROM oauth_access_tokens t WHERE t.revoked_at >= $2) AS revoked_within_margin,
      (SELECT count(*)::int FROM oauth_access_tokens t
        WHERE t.revoked_at < $2 AND t.refresh_family IS NOT NULL AND ${usableFamilyMember('$1', '$4')}) AS revoked_for_reuse_detection,
      (SELECT count(*)::int FROM oauth_access_grants t
        WHERE t.revoked_at >= $3 OR (t.revoked_at IS NULL AND t.created_at + make_interval(secs => t.expires_in) < $1
          AND t.created_at + make_interval(secs => t.expires_in) >= $3)) AS codes_for_replay_detection`,
    [timestamp(options.now), secondsBefore(options.now, margin), secondsBefore(options.now, options.authorizationCodeExpiresIn), refreshCutoff],
  );
  return { revoked_margin_seconds: margin, ...row! };
}
