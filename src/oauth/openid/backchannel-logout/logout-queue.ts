import type { OAuthDeps } from '../../deps.js';
import type { ApplicationRecord, Stores, UserRecord } from '../../store.js';
import { subjectFor } from '../subject.js';
import type { ClientSession, NewLogoutDelivery } from './logout-delivery-store.js';

// Who is sent a logout token (OpenID Connect Back-Channel Logout 1.0 section 2.3, "remembering logged-in RPs"), queued
// in oauth_logout_deliveries by the request that ends a session, and delivered afterwards by the worker
// (logout-delivery-worker.ts): the user's page never waits for a relying party. Only while OpenID Connect is on, and
// only clients with a backchannel_logout_uri. The logged-in RPs are read from the tokens this server issued: each
// carries the login session (sid) it came from.

/**
 * A login session ended (RP-Initiated Logout, /logout): every client issued tokens in it gets a logout token with its
 * sid (and the user's sub), whether or not those tokens are still live: the client's own session outlives them.
 * How many were queued.
 */
export async function queueSessionLogout(deps: OAuthDeps, session: { userId: number; sessionId: string }): Promise<number> {
  if (!deps.config.openid.enabled) return 0;
  const { stores } = deps;
  const clients = await stores.logoutDeliveries.clientsOfSession(session.userId, session.sessionId);
  if (clients.length === 0) return 0;
  const user = await stores.users.findById(session.userId);
  const deliveries = clients.map(({ application }) => ({
    applicationId: application.id,
    subject: subjectOf(deps, user, application),
    sessionId: session.sessionId,
  }));
  await stores.logoutDeliveries.add(deliveries, deps.now());
  deps.logoutDeliveries?.wake();
  return deliveries.length;
}

/**
 * The user's tokens are being revoked (an admin disabling, deleting or "revoking all tokens" of the user, or the user
 * revoking an application): each client holding one is logged out, in `stores`' transaction with the revocation. Section
 * 2.4: without a sid, a logout token ends every session of the user at the client, so one token with the sub does;
 * a client that requires a sid (backchannel_logout_session_required) gets one per login session its tokens came from.
 * The caller wakes the worker once the transaction committed. How many were queued.
 */
export async function queueTokenHoldersLogout(
  deps: OAuthDeps,
  stores: Stores,
  resourceOwnerId: number,
  applicationId: number | null,
): Promise<number> {
  if (!deps.config.openid.enabled) return 0;
  const holders = await stores.logoutDeliveries.clientsHoldingTokens(resourceOwnerId, applicationId);
  if (holders.length === 0) return 0;
  const user = await stores.users.findById(resourceOwnerId);
  const deliveries: NewLogoutDelivery[] = [];
  for (const [application, sessions] of sessionsByClient(holders)) {
    const subject = subjectOf(deps, user, application);
    for (const sessionId of sessionsToName(application, sessions)) {
      if (subject !== null || sessionId !== null) deliveries.push({ applicationId: application.id, subject, sessionId });
    }
  }
  await stores.logoutDeliveries.add(deliveries, deps.now());
  return deliveries.length;
}

function sessionsByClient(holders: readonly ClientSession[]): Map<ApplicationRecord, string[]> {
  const byId = new Map<number, { application: ApplicationRecord; sessions: string[] }>();
  for (const { application, sessionId } of holders) {
    const entry = byId.get(application.id) ?? { application, sessions: [] };
    if (sessionId !== null) entry.sessions.push(sessionId);
    byId.set(application.id, entry);
  }
  return new Map([...byId.values()].map(({ application, sessions }) => [application, sessions]));
}

/** The sids one client's logout tokens name: null (all sessions) unless it requires a sid, then each one known. */
function sessionsToName(application: ApplicationRecord, sessions: readonly string[]): Array<string | null> {
  if (!application.backchannelLogoutSessionRequired) return [null];
  // Tokens from outside any login session (no sid to name): the sub alone, which such a client may still refuse.
  return sessions.length > 0 ? [...new Set(sessions)] : [null];
}

// Core 8 (subject.ts): the sub the client knows the user by. None when the user is gone, or a pairwise client's sub
// cannot be computed (its salt was removed): the token then names the session alone, where there is one.
function subjectOf(deps: OAuthDeps, user: UserRecord | null, application: ApplicationRecord): string | null {
  if (user === null) return null;
  try {
    return subjectFor(user, application, deps.config);
  } catch {
    return null;
  }
}
