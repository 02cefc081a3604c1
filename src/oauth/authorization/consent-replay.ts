import type { OAuthDeps } from '../deps.js';
import { isFirstInSessionLifetime } from '../once-per-session.js';

// One click gives one code (http/routes/authorize/consent-ticket.ts): a consent page's ticket travels in the browser's
// session cookie, and a copy of that cookie from before the approval, or the same form posted several times at once,
// would still hold it: its first use is recorded (an older cookie than a session's lifetime has no session left).

/** Whether this is the first approval through the consent page `ticket` names. */
export const isFirstApproval = (deps: Pick<OAuthDeps, 'stores' | 'now'>, ticket: string): Promise<boolean> =>
  isFirstInSessionLifetime(deps, 'consent-ticket', 'consent', ticket);
