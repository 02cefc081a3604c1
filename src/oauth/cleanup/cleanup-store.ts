// The storage interface of `tokens cleanup`: cleanup-policy.ts decides what is stale, src/storage/cleanup.ts
// deletes it in bounded batches.

import type { CleanupKind, CleanupPolicy } from './cleanup-policy.js';

export interface CleanupRun {
  batchSize: number;
  /** Count what would be deleted, delete nothing. */
  dryRun?: boolean;
  /** Called after each batch that deleted rows (progress for long runs, and tests). */
  onBatch?: (kind: CleanupKind, rows: number) => void;
  /** Called after every window of the index: how many rows it read (never more than batchSize) and deleted. */
  onWindow?: (kind: CleanupKind, scanned: number, deleted: number) => void;
}

/** What a cleanup keeps on purpose although revoked or expired (CleanupPolicy.kept), counted. */
export interface KeptCounts {
  /** Tokens revoked within the margin (requests in flight may still read them; a retried refresh gets its successor). */
  revoked_within_margin: number;
  /** Tokens revoked longer ago whose refresh family still has a usable member (reuse detection needs them). */
  revoked_for_reuse_detection: number;
  /** Codes used, or expired unused, within authorizationCodeExpiresIn (a replay must still revoke what it issued). */
  codes_for_replay_detection: number;
}

/** Runs the cleanup policy's rules in bounded batches (`tokens cleanup`); never on a request path. */
export interface CleanupStore {
  /** Deletes (or with dryRun counts) the records of each rule, in the policy's order; how many of each kind. */
  deleteStale(policy: CleanupPolicy, run: CleanupRun): Promise<Record<CleanupKind, number>>;
  countKept(policy: CleanupPolicy): Promise<KeptCounts>;
}
