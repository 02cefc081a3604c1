import type { OAuthDeps } from '../deps.js';
import { replayKey } from '../replay-key.js';
import { LOGIN_SESSION_LIFETIME_SECONDS } from '../sessions/login-session-lifetime.js';

// SPEC 3.6: a plain client secret is shown once, on the page after create or rotate. It travels there in the session
// cookie (http/routes/applications/secret-once.ts), and a copy of that cookie from before the first showing would show
// it again (Doorkeeper's flash has that property; an admins' audit found it here). Its first showing is recorded in the
// replay table (oauth_dpop_proofs, under a namespace of its own), on every instance, for as long as the cookie lives.
const NAMESPACE = 'secret-shown';

/** Whether this is the first showing of `secret` for this application; the recorded key is a hash, never the secret. */
export function isFirstShowing(deps: Pick<OAuthDeps, 'stores' | 'now'>, applicationId: number, secret: string): Promise<boolean> {
  const until = new Date(deps.now().getTime() + LOGIN_SESSION_LIFETIME_SECONDS * 1000);
  return deps.stores.dpopProofs.remember(replayKey(NAMESPACE, String(applicationId), secret), until);
}
