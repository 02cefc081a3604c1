import type { Config } from '../../../config/types.js';
import type { LockedRegistrations } from './registration-store.js';
import { unusedClientsExpireBefore, type SelfRegistered } from './unused-clients.js';

// Issue 29 items 4 and 5: strangers may make clients, so each kind has a cap on the clients stored at once:
// registration.maxOpenRegistrations for those registered at /oauth/register (RFC 7591), and
// clientIdMetadataDocuments.maxClients for those made from a metadata document. A cap counts live clients only
// (unused-clients.ts: used, approved, or registered within the lifetime), under the registration lock every
// registration takes on every instance, so concurrent ones cannot overshoot it. The operator hears of a cap
// nearly full before strangers fill it: a warn line once per crossing and a gauge.

/** Expired unused clients deleted under the lock at each registration: the table stays bounded without a cron job. */
export const EXPIRED_DELETED_PER_REGISTRATION = 10;
/** The share of a cap from which it counts as nearly full. */
export const NEARLY_FULL = 0.8;

/** Told of each count against a cap: this instance's latest view of how full it is. */
export type CapObserver = (kind: SelfRegistered, live: number, cap: number) => void;

export interface CapReporter {
  /** Every count (a gauge). */
  counted: CapObserver;
  /** The count reached NEARLY_FULL of the cap; told again only after it fell below. */
  nearlyFull: CapObserver;
}

/** A CapObserver that reports every count, and a crossing into "nearly full" once per crossing and kind. */
export function watchRegistrationCaps(reporter: CapReporter): CapObserver {
  const nearlyFull = new Set<SelfRegistered>();
  return (kind, live, cap) => {
    reporter.counted(kind, live, cap);
    if (live < cap * NEARLY_FULL) nearlyFull.delete(kind);
    else if (!nearlyFull.has(kind)) {
      nearlyFull.add(kind);
      reporter.nearlyFull(kind, live, cap);
    }
  };
}

/** Live clients over their cap, 0 to 1 (a cap of 0 is full). */
export const capRatio = (live: number, cap: number): number => (cap === 0 ? 1 : Math.min(live / cap, 1));

export interface CapDeps {
  config: Readonly<Config>;
  now: () => Date;
  observeCap?: CapObserver | undefined;
}

export function capOf(kind: SelfRegistered, config: Readonly<Config>): number {
  return kind === 'dynamic' ? config.registration.maxOpenRegistrations : config.registration.clientIdMetadataDocuments.maxClients;
}

/**
 * Under the registration lock, before a client of `kind` is made: deletes a few expired unused clients, counts the
 * live ones, and answers whether there is room for one more (counted as made, for the observer).
 */
export async function roomUnderCap(
  locked: Pick<LockedRegistrations, 'countLiveClients' | 'deleteExpiredUnusedClients'>,
  kind: SelfRegistered,
  deps: CapDeps,
): Promise<boolean> {
  const expiredBefore = unusedClientsExpireBefore(deps.config.registration.unusedClientLifetimeSeconds, deps.now());
  await locked.deleteExpiredUnusedClients(expiredBefore, EXPIRED_DELETED_PER_REGISTRATION);
  const live = await locked.countLiveClients(kind, expiredBefore);
  const cap = capOf(kind, deps.config);
  const room = live < cap;
  deps.observeCap?.(kind, room ? live + 1 : live, cap);
  return room;
}

/** The same count without the lock (nothing is made on it): whether the cap of `kind` is reached now. */
export async function capReached(
  registrations: Pick<LockedRegistrations, 'countLiveClients'>,
  kind: SelfRegistered,
  deps: CapDeps,
): Promise<boolean> {
  const expiredBefore = unusedClientsExpireBefore(deps.config.registration.unusedClientLifetimeSeconds, deps.now());
  const live = await registrations.countLiveClients(kind, expiredBefore);
  const cap = capOf(kind, deps.config);
  deps.observeCap?.(kind, live, cap);
  return live >= cap;
}
