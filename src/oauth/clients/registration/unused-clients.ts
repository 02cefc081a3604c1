import type { ApplicationRecord, RegisteredBy } from '../application-store.js';

// Issue 29 item 5: open registration (RFC 7591) and Client ID Metadata Documents let anyone make a client, so a
// client that registered itself and was never used (no token issued: used_at NULL) nor approved by an admin within
// registration.unusedClientLifetimeSeconds of registering expires. It is then an unknown client at the
// authorization and token endpoints, does not count against the caps (registration-cap.ts), and is deleted, a few
// at each registration and by `tokens cleanup`. A stranger who fills a cap holds it for one lifetime at most.
// storage/self-registered-clients.ts states the same rule in SQL.

export type SelfRegistered = Exclude<RegisteredBy, 'admin'>;

/** Unused self-registered clients registered before this instant have expired. */
export function unusedClientsExpireBefore(lifetimeSeconds: number, now: Date): Date {
  return new Date(now.getTime() - lifetimeSeconds * 1000);
}

/**
 * Whether `application` expired unused at `now`. Decided from the row alone (no query), so the lookups of the token
 * and introspection endpoints stay as they were; an admin-made application is ruled out by its first comparison.
 */
export function expiredUnused(application: ApplicationRecord, lifetimeSeconds: number, now: Date): boolean {
  return (
    application.registeredBy !== 'admin' &&
    application.usedAt === null &&
    application.approvedAt === null &&
    application.createdAt.getTime() < now.getTime() - lifetimeSeconds * 1000
  );
}

/** What the authorization page says of an expired client (RFC 7591 section 3: it may simply register again). */
export const EXPIRED_UNUSED_EXPLANATION =
  'This application registered itself with this server but did not complete an authorization in time, so its ' +
  'registration has expired. The application must register again.';
