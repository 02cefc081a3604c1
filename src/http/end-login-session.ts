import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../oauth/deps.js';
import { queueSessionLogout } from '../oauth/openid/backchannel-logout/logout-queue.js';
import { recordAuditEventAlone } from '../oauth/audit/audit-trail.js';
import type { NewAuditEvent } from '../oauth/audit/audit-store.js';
import { signOutEvent } from '../oauth/audit/sign-in-events.js';
import { endLoginSessionByKey } from '../oauth/sessions/login-sessions.js';
import type { LoginSessionRecord } from '../oauth/sessions/login-session-store.js';
import { auditWriteFailed } from './audit-actor.js';

/**
 * Ends the browser's login session (POST /logout, RP-Initiated Logout, the account page's "sign out this session" on
 * the current one): its row goes, and the cookie is replaced by an empty one. Whether a session was still live here:
 * one ended meanwhile on another instance was announced there.
 */
export async function endLoginSession(deps: OAuthDeps, request: FastifyRequest): Promise<boolean> {
  const key = request.session.get('sessionKey');
  request.session.regenerate();
  if (typeof key !== 'string') return false;
  const ended = await endLoginSessionByKey(deps, key);
  if (ended === null) return false;
  await announceEndedSession(deps, request, ended, signOutEvent(ended.userId, request.ip));
  return true;
}

/**
 * After a login session's row was deleted: its audit event, and a logout token queued for each client that signed
 * the user in during it (Back-Channel Logout 1.0); the worker delivers them after the page has answered. A queue that
 * cannot be written is logged, and the session is over all the same.
 */
export async function announceEndedSession(
  deps: OAuthDeps,
  request: FastifyRequest,
  ended: LoginSessionRecord,
  event: NewAuditEvent,
): Promise<void> {
  await recordAuditEventAlone(
    deps,
    event,
    auditWriteFailed(() => request.log),
  );
  try {
    await queueSessionLogout(deps, { userId: ended.userId, sessionId: ended.openidSessionId });
  } catch (error) {
    request.log.error({ err: error, event: 'backchannel_logout.queue_failed' }, 'the logout tokens of an ended session were not queued');
  }
}
