import type { OAuthDeps } from '../deps.js';
import { isFirstInSessionLifetime } from '../once-per-session.js';

// SPEC 3.6: a plain client secret is shown once, on the page after create or rotate. It travels there in the session
// cookie (http/routes/applications/secret-once.ts), and a copy of that cookie from before the first showing would show
// it again (Doorkeeper's flash has that property; an admins' audit found it here): its first showing is recorded.

/** Whether this is the first showing of `secret` for this application. */
export const isFirstShowing = (deps: Pick<OAuthDeps, 'stores' | 'now'>, applicationId: number, secret: string): Promise<boolean> =>
  isFirstInSessionLifetime(deps, 'secret-shown', String(applicationId), secret);
