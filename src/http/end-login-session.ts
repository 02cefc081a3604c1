import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../oauth/deps.js';
import { queueSessionLogout } from '../oauth/openid/backchannel-logout/logout-queue.js';
import { recordAuditEventAlone } from '../oauth/audit/audit-trail.js';
import { signOutEvent } from '../oauth/audit/sign-in-events.js';
import { auditWriteFailed } from './audit-actor.js';

/**
 * Ends the browser's login session (POST /logout, RP-Initiated Logout) and queues a logout token for each client that
 * signed the user in during it (Back-Channel Logout 1.0); the worker delivers them after the page has answered. A
 * queue that cannot be written is logged, and the user is signed out all the same. Whether someone was signed in.
 */
export async function endLoginSession(deps: OAuthDeps, request: FastifyRequest): Promise<boolean> {
  const userId = request.session.get('userId');
  const sessionId = request.session.get('sid');
  request.session.regenerate();
  if (typeof userId !== 'number') return false;
  await recordAuditEventAlone(
    deps,
    signOutEvent(userId, request.ip),
    auditWriteFailed(() => request.log),
  );
  if (typeof sessionId === 'string') {
    try {
      await queueSessionLogout(deps, { userId, sessionId });
    } catch (error) {
      request.log.error({ err: error, event: 'backchannel_logout.queue_failed' }, 'the logout tokens of an ended session were not queued');
    }
  }
  return true;
}
