import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../oauth/deps.js';
import { startLoginSession, type UpstreamSession } from '../oauth/sessions/login-sessions.js';
import type { UserRecord } from '../oauth/store.js';

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
  const { key } = await startLoginSession(
    deps,
    { user, ...method, ip: request.ip, userAgent: request.headers['user-agent'] },
    typeof previousKey === 'string' ? previousKey : undefined,
  );
  request.session.set('sessionKey', key);
}
