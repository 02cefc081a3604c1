import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../oauth/deps.js';
import { signOutEvent } from '../oauth/audit/sign-in-events.js';
import { startLoginSession, type UpstreamSession } from '../oauth/sessions/login-sessions.js';
import type { UserRecord } from '../oauth/store.js';
import { announceEndedSession } from './end-login-session.js';

// As @fastify/csrf makes its secrets (secretLength 18, base64url).
const CSRF_SECRET_BYTES = 18;

/**
 * Signs the browser in as `user`: a new login_sessions row, and a new cookie holding its key. Nothing set in the
 * cookie before (the CSRF secret included) outlives the change of user.
 */
export async function signInBrowser(
  deps: OAuthDeps,
  request: FastifyRequest,
  user: UserRecord,
  method: { amr: string[]; acr: string | null; upstream?: UpstreamSession },
): Promise<void> {
  const previousKey = request.session.get('sessionKey');
  request.session.regenerate();
  // A CSRF secret now, not at the first page that asks for one: pages loaded at once after the sign-in (tabs, several
  // applications) would each make their own, and only the last one's forms would be taken.
  request.session.set('_csrf', randomBytes(CSRF_SECRET_BYTES).toString('base64url'));
  const { key, ended } = await startLoginSession(
    deps,
    { user, ...method, ip: request.ip, userAgent: request.headers['user-agent'] },
    typeof previousKey === 'string' ? previousKey : undefined,
  );
  request.session.set('sessionKey', key);
  // Another user signing in over a live session ends that user's session: the clients signed in during it are told,
  // as at a sign-out, else they would go on as that user unannounced. The same user signing in again (prompt=login,
  // max_age, a step-up) goes on in the same session (`ended` is null): telling its clients would log the user out.
  if (ended !== null) await announceEndedSession(deps, request, ended, signOutEvent(ended.userId, request.ip));
}
