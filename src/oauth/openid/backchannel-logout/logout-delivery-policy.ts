import type { BackchannelLogoutConfig } from '../../../config/backchannel-logout-schema.js';
import type { DeliverySettlement } from './logout-delivery-store.js';
import type { LogoutPostOutcome } from './logout-token-post.js';

// When a logout token is tried again (config openid.backchannelLogout): the first wait retryAfterSeconds, each later one
// twice the one before, never more than an hour, until maxAttempts attempts were made; a client that refused the token
// is not asked again. A claimed delivery is leased for its attempt's deadline plus a margin: an instance that dies
// mid-attempt leaves it due again shortly after, for any instance.

export const MAX_RETRY_WAIT_SECONDS = 3600;
const LEASE_MARGIN_MS = 30_000;

export type DeliverySettings = Pick<BackchannelLogoutConfig, 'timeoutMs' | 'maxAttempts' | 'retryAfterSeconds'>;

/** Seconds to wait after the `attempts`-th failed attempt. */
export function retryWaitSeconds(settings: DeliverySettings, attempts: number): number {
  return Math.min(settings.retryAfterSeconds * 2 ** Math.max(0, attempts - 1), MAX_RETRY_WAIT_SECONDS);
}

/** Until when a delivery claimed at `now` is its claimant's. */
export function leaseUntil(settings: DeliverySettings, now: Date): Date {
  return new Date(now.getTime() + settings.timeoutMs + LEASE_MARGIN_MS);
}

/** What becomes of a delivery whose `attempts`-th attempt ended in `outcome` at `now`. */
export function settlementOf(outcome: LogoutPostOutcome, attempts: number, settings: DeliverySettings, now: Date): DeliverySettlement {
  if (outcome.kind === 'delivered') return { outcome: 'delivered', at: now };
  if (outcome.kind === 'refused') return { outcome: 'failed', at: now, error: outcome.reason };
  if (attempts >= settings.maxAttempts)
    return { outcome: 'failed', at: now, error: `${outcome.reason}; given up after ${attempts} attempts` };
  return {
    outcome: 'retry',
    at: now,
    retryAt: new Date(now.getTime() + retryWaitSeconds(settings, attempts) * 1000),
    error: outcome.reason,
  };
}
