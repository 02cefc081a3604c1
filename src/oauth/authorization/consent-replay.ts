import type { OAuthDeps } from '../deps.js';
import { replayKey } from '../replay-key.js';
import { LOGIN_SESSION_LIFETIME_SECONDS } from '../sessions/login-session-lifetime.js';

// One click gives one code (http/routes/authorize/consent-ticket.ts): a consent page's ticket travels in the browser's
// session cookie, and a copy of that cookie from before the approval, or the same form posted several times at once,
// would still hold it. Its first use is recorded in the replay table (oauth_dpop_proofs, under a namespace of its own:
// replay-key.ts), on every instance, for as long as a session may go unused: an older cookie has no session left.
const NAMESPACE = 'consent-ticket';

/** Whether this is the first approval through the consent page `ticket` names. */
export function isFirstApproval(deps: Pick<OAuthDeps, 'stores' | 'now'>, ticket: string): Promise<boolean> {
  const until = new Date(deps.now().getTime() + LOGIN_SESSION_LIFETIME_SECONDS * 1000);
  return deps.stores.dpopProofs.remember(replayKey(NAMESPACE, 'consent', ticket), until);
}
