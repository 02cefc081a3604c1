import type { OAuthDeps } from './deps.js';
import { replayKey } from './replay-key.js';
import { LOGIN_SESSION_LIFETIME_SECONDS } from './sessions/login-session-lifetime.js';

/**
 * Whether this is the first time `key` is seen under `namespace` and `scope` while a login session may live: what a
 * session cookie carries once (a consent page's ticket, a secret to show) is recorded in the replay table, on every
 * instance, so that an older copy of the cookie, or the same form posted twice at once, finds it used. The recorded
 * key is a hash (replay-key.ts), never the value.
 */
export function isFirstInSessionLifetime(
  deps: Pick<OAuthDeps, 'stores' | 'now'>,
  namespace: string,
  scope: string,
  key: string,
): Promise<boolean> {
  const until = new Date(deps.now().getTime() + LOGIN_SESSION_LIFETIME_SECONDS * 1000);
  return deps.stores.dpopProofs.remember(replayKey(namespace, scope, key), until);
}
