import {
  CLEANUP_KINDS,
  cleanupPolicy,
  type CleanupKind,
  type CleanupPolicy,
  type CleanupRule,
  type CleanupSettings,
  type UsableFamily,
} from '../oauth/cleanup/cleanup-policy.js';
import type { CleanupResult } from '../oauth/cleanup/cleanup.js';
import type { CleanupRun, CleanupStore, KeptCounts } from '../oauth/store.js';
import { timestamp } from './rows.js';
import { UNUSED_SELF_REGISTERED } from './self-registered-clients.js';
import type { SqlClient } from './sql-client.js';

// Stale-record cleanup (reference section 18, SPEC 2): the rules of oauth/cleanup/cleanup-policy.ts as SQL, with the
// policy's instants as parameters. Hard DELETEs in bounded batches, each batch its own short autocommitted
// statement, so no lock is held for long even on tables of tens of millions of rows.
// A batch is a window of the index of the rule's time column: the next `batchSize` rows in (column, id) order
// after the previous window (keyset), whatever they are; the rule's condition then picks which of them go.
// So a statement never reads more than `batchSize` index entries, even where the rows still to delete are
// few and far between: live tokens, or the rotated tokens of live refresh families, can fill most of the
// index and a "next n matching rows" query would read all of them in one statement (measured: 3.3 s on 1M
// live rows). Each row is read once per run. The walk stops at the rule's bound on the column (nothing
// after it can match) or at the end of the index.

interface Rule {
  table:
    | 'oauth_access_tokens'
    | 'oauth_access_grants'
    | 'oauth_applications'
    | 'oauth_logout_deliveries'
    | 'oauth_audit_events'
    | 'oauth_device_authorizations'
    | 'oauth_pushed_authorization_requests'
    | 'login_sessions';
  /** The indexed time column the batches walk; never NULL for the rows of the rule. */
  order: 'revoked_at' | 'created_at' | 'occurred_at' | 'expires_at' | 'last_seen_at';
  /** No row of the rule has `order` at or after this instant: the walk ends there. */
  before: string;
  /** SQL condition on the row `t`; $1 and $2 are the keyset cursor, $3 the bound, $4 the batch size, `values` $5 on. */
  where: string;
  values: unknown[];
}

/** Whether the refresh family of row `t` has a usable member (UsableFamily): $at, and $issuedBefore or NULL. */
const usableFamilyMember = (at: string, issuedBefore: string) => `EXISTS (
  SELECT 1 FROM oauth_access_tokens live
  WHERE live.refresh_family = t.refresh_family AND (live.revoked_at IS NULL OR live.revoked_at > ${at})
    AND (live.expires_in IS NULL OR live.created_at + make_interval(secs => live.expires_in) >= ${at}
      OR ${issuedBefore}::timestamp IS NULL OR live.created_at >= ${issuedBefore}::timestamp))`;
const familyValues = (family: UsableFamily) => [
  timestamp(family.at),
  family.refreshTokensIssuedBefore && timestamp(family.refreshTokensIssuedBefore),
];

/** A rule of the policy as a walk of an index and a condition on its rows. */
function sqlOf(rule: CleanupRule): Rule {
  switch (rule.kind) {
    case 'expired_tokens':
      return {
        table: 'oauth_access_tokens',
        order: 'created_at',
        before: timestamp(rule.expiredBefore),
        where: `t.revoked_at IS NULL AND t.refresh_token IS NULL AND t.expires_in IS NOT NULL
          AND t.created_at + make_interval(secs => t.expires_in) < $5`,
        values: [timestamp(rule.expiredBefore)],
      };
    case 'expired_refresh_tokens':
      return {
        table: 'oauth_access_tokens',
        order: 'created_at',
        before: timestamp(rule.refreshTokensIssuedBefore),
        where: `t.revoked_at IS NULL AND t.refresh_token IS NOT NULL AND t.expires_in IS NOT NULL
          AND t.created_at + make_interval(secs => t.expires_in) < $5`,
        values: [timestamp(rule.expiredBefore)],
      };
    case 'revoked_tokens':
      return {
        table: 'oauth_access_tokens',
        order: 'revoked_at',
        before: timestamp(rule.revokedBefore),
        where: `(t.refresh_family IS NULL OR NOT ${usableFamilyMember('$5', '$6')})`,
        values: familyValues(rule.unlessFamilyUsable),
      };
    case 'revoked_grants':
      return { table: 'oauth_access_grants', order: 'revoked_at', before: timestamp(rule.revokedBefore), where: 'TRUE', values: [] };
    case 'expired_grants':
      return {
        table: 'oauth_access_grants',
        order: 'created_at',
        before: timestamp(rule.expiredBefore),
        where: 't.revoked_at IS NULL AND t.created_at + make_interval(secs => t.expires_in) < $5',
        values: [timestamp(rule.expiredBefore)],
      };
    case 'unused_clients':
      // oauth_applications has no created_at index: its rows are few (the caps bound the self-registered ones).
      return {
        table: 'oauth_applications',
        order: 'created_at',
        before: timestamp(rule.registeredBefore),
        where: UNUSED_SELF_REGISTERED,
        values: [],
      };
    case 'logout_deliveries':
      // A delivery is done after it was created: its created_at bounds the walk.
      return {
        table: 'oauth_logout_deliveries',
        order: 'created_at',
        before: timestamp(rule.doneBefore),
        where: '(t.delivered_at < $5 OR t.failed_at < $5)',
        values: [timestamp(rule.doneBefore)],
      };
    case 'audit_events':
      return { table: 'oauth_audit_events', order: 'occurred_at', before: timestamp(rule.occurredBefore), where: 'TRUE', values: [] };
    case 'expired_device_codes':
      return {
        table: 'oauth_device_authorizations',
        order: 'expires_at',
        before: timestamp(rule.expiredBefore),
        where: 'TRUE',
        values: [],
      };
    case 'expired_login_sessions':
      return { table: 'login_sessions', order: 'last_seen_at', before: timestamp(rule.unusedSince), where: 'TRUE', values: [] };
    case 'expired_pushed_requests':
      return {
        table: 'oauth_pushed_authorization_requests',
        order: 'expires_at',
        before: timestamp(rule.expiredBefore),
        where: 'TRUE',
        values: [],
      };
  }
}

/** The policy's rules and kept counts on a database. */
export function cleanupStore(sql: SqlClient): CleanupStore {
  return {
    async deleteStale(policy, run) {
      if (!Number.isInteger(run.batchSize) || run.batchSize < 1) throw new RangeError('batchSize must be a positive integer');
      const deleted = Object.fromEntries(CLEANUP_KINDS.map((kind) => [kind, 0])) as Record<CleanupKind, number>;
      for (const rule of policy.rules) deleted[rule.kind] = await runInBatches(sql, rule.kind, sqlOf(rule), run);
      return deleted;
    },
    countKept: (policy) => countKept(sql, policy),
  };
}

export interface CleanupOptions extends CleanupSettings, CleanupRun {
  now: Date;
}

/** The domain's policy for these settings and instant, run on a database (scripts and tests; the CLI goes through the domain). */
export async function cleanupStaleRecords(database: { sql: SqlClient }, options: CleanupOptions): Promise<CleanupResult> {
  const deleted = await cleanupStore(database.sql).deleteStale(cleanupPolicy(options, options.now), options);
  return { deleted, total: Object.values(deleted).reduce((sum, count) => sum + count, 0) };
}

async function runInBatches(sql: SqlClient, kind: CleanupKind, rule: Rule, options: CleanupRun): Promise<number> {
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
    const [window] = await sql.query<{ scanned: number; affected: number; after_at: string | null; after_id: number | null }>(text, [
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

/** What the policy keeps on purpose (for --dry-run): the complement of its rules, within the stale rows. */
async function countKept(sql: SqlClient, { now, kept }: CleanupPolicy): Promise<KeptCounts> {
  const [row] = await sql.query<KeptCounts>(
    `SELECT
      (SELECT count(*)::int FROM oauth_access_tokens t WHERE t.revoked_at >= $2) AS revoked_within_margin,
      (SELECT count(*)::int FROM oauth_access_tokens t
        WHERE t.revoked_at < $2 AND t.refresh_family IS NOT NULL AND ${usableFamilyMember('$4', '$5')}) AS revoked_for_reuse_detection,
      (SELECT count(*)::int FROM oauth_access_grants t
        WHERE t.revoked_at >= $3 OR (t.revoked_at IS NULL AND t.created_at + make_interval(secs => t.expires_in) < $1
          AND t.created_at + make_interval(secs => t.expires_in) >= $3)) AS codes_for_replay_detection`,
    [timestamp(now), timestamp(kept.tokensRevokedSince), timestamp(kept.codesDoneSince), ...familyValues(kept.usableFamily)],
  );
  return row!;
}
