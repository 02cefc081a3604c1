import { cleanupPolicy, type CleanupKind } from './cleanup-policy.js';
import type { OAuthDeps } from '../deps.js';
import type { CleanupRun, KeptCounts } from '../store.js';

export interface CleanupResult {
  deleted: Record<CleanupKind, number>;
  total: number;
}

export interface KeptRecords extends KeptCounts {
  /** max(refreshTokens.graceSeconds, MIN_REVOKED_MARGIN_SECONDS): how long a revoked token is kept at least. */
  revoked_margin_seconds: number;
}

type CleanupDeps = Pick<OAuthDeps, 'stores' | 'config'>;

const policyOf = ({ config }: CleanupDeps, now: Date) =>
  cleanupPolicy(
    {
      graceSeconds: config.refreshTokens.graceSeconds,
      refreshTokenExpiresIn: config.refreshTokens.expiresIn,
      authorizationCodeExpiresIn: config.authorizationCodeExpiresIn,
      unusedClientLifetimeSeconds: config.registration.unusedClientLifetimeSeconds,
      logoutDeliveriesKeptSeconds: config.openid.backchannelLogout.keepDays * 86_400,
      auditEventsKeptSeconds: config.audit.retentionDays * 86_400,
    },
    now,
  );

/** Deletes (or with dryRun counts) the records the cleanup policy finds stale at `now` (`tokens cleanup`). */
export async function cleanUpStaleRecords(deps: CleanupDeps, now: Date, run: CleanupRun): Promise<CleanupResult> {
  const deleted = await deps.stores.cleanup.deleteStale(policyOf(deps, now), run);
  return { deleted, total: Object.values(deleted).reduce((sum, count) => sum + count, 0) };
}

/** What the policy keeps on purpose at `now` although revoked or expired, counted (`tokens cleanup --dry-run`). */
export async function countKeptRecords(deps: CleanupDeps, now: Date): Promise<KeptRecords> {
  const policy = policyOf(deps, now);
  return { revoked_margin_seconds: policy.revokedMarginSeconds, ...(await deps.stores.cleanup.countKept(policy)) };
}
