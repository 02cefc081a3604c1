import { randomBytes } from 'node:crypto';
import type { OAuthDeps } from '../deps.js';
import { OAuthError } from '../oauth-error.js';
import { sha256Hex } from '../secrets.js';
import type { UserRecord } from '../users/user-store.js';
import { isLive, oldestLive } from './login-session-lifetime.js';
import type { LoginSessionRecord } from './login-session-store.js';

// A browser's sign-in (issue 35 item 5). The encrypted session cookie carries a random key, the database the row
// keyed by its SHA-256: a stolen database does not give anyone a session, and ending the row signs the browser out on
// every instance at its next request. The row's openid_session_id is the login session's id of OpenID Connect: tokens
// issued in the session store it, each client's sid is derived from it (client-sid.ts), and ending the session
// queues back-channel logout for it. A new session's is its first session_id; the same user's next sign-in keeps it.

/**
 * The user's password changed (or the user went) while this sign-in was being made, after it read the account: it
 * is not made, as one that started after the change would not be. A 409 page; signing in again works.
 */
export class SignInOutdated extends OAuthError {
  constructor() {
    super('conflict', 409, 'Your account changed while you were signing in (its password, or the account itself). Sign in again.');
  }
}

// last_seen_at is written at most this often per session: a page view is a read, not a write.
const SEEN_INTERVAL_MS = 60_000;

// A User-Agent header is the client's to make as long as it likes; the list shows a summary anyway.
const MAX_USER_AGENT = 512;

export interface SignIn {
  user: UserRecord;
  /** RFC 8176 methods, e.g. ['pwd']. */
  amr: string[];
  acr: string | null;
  ip: string;
  userAgent: string | undefined;
  /** Issue 37: the upstream sign-in this one was made through, if any. */
  upstream?: UpstreamSession;
}

/** What a login session keeps of an upstream sign-in: for RP-initiated and back-channel logout with the upstream. */
export interface UpstreamSession {
  providerId: string;
  subject: string;
  /** The upstream ID token's sid, if it had one. */
  sessionId: string | null;
  /** Kept only when the provider's session is to be ended with ours (endUpstreamSession). */
  idToken: string | null;
}

/**
 * The new session's row and the key its cookie carries (shown to nobody else, stored nowhere). The browser's previous
 * session (`previousKey`), if any, ends: its cookie is replaced, so nobody could use or end it any more. Unless the
 * new row goes on in its session of OpenID Connect (continuedOpenidSession), its row is returned as `ended`, for the
 * caller to announce like any other sign-out; null when nothing ended.
 */
export async function startLoginSession(
  deps: OAuthDeps,
  signIn: SignIn,
  previousKey: string | undefined,
): Promise<{ key: string; session: LoginSessionRecord; ended: LoginSessionRecord | null }> {
  const previous = previousKey === undefined ? null : await endLoginSessionByKey(deps, previousKey);
  const continued = continuedOpenidSession(deps, previous, signIn.user);
  const key = randomBytes(32).toString('base64url');
  const sessionId = sessionIdOf(key);
  const session = await deps.stores.loginSessions.create(
    {
      sessionId,
      openidSessionId: continued ?? sessionId,
      userId: signIn.user.id,
      authTime: deps.now(),
      amr: signIn.amr,
      acr: signIn.acr,
      ip: signIn.ip,
      userAgent: signIn.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
      upstreamProviderId: signIn.upstream?.providerId ?? null,
      upstreamSubject: signIn.upstream?.subject ?? null,
      upstreamSessionId: signIn.upstream?.sessionId ?? null,
      upstreamIdToken: signIn.upstream?.idToken ?? null,
    },
    deps.now(),
    signIn.user.passwordHash,
  );
  if (session === null) throw new SignInOutdated();
  return { key, session, ended: continued === null ? previous : null };
}

export const sessionIdOf = (key: string): string => sha256Hex(key);

/**
 * The same user signing in again over their live session (prompt=login, max_age, a step-up) goes on in the same
 * session of OpenID Connect, as node-oidc-provider keeps it: the clients signed in before and after it are one
 * session's, told together at its end, and see one sid. Only the cookie's key is new, so a copy of the old cookie
 * does not outlive the sign-in. Another user, or a session no longer live, starts a session of its own.
 */
function continuedOpenidSession(deps: OAuthDeps, ended: LoginSessionRecord | null, user: UserRecord): string | null {
  if (ended === null || ended.userId !== user.id) return null;
  return isLive(ended, deps.now()) && !madeThroughRemovedProvider(deps, ended) ? ended.openidSessionId : null;
}

/**
 * The live session the cookie's key names, with its enabled user, or null: no row (ended here or on another
 * instance), unused for longer than the lifetime, a user disabled since, or made through an identity provider
 * removed since. Marks the session seen.
 */
export async function liveLoginSession(deps: OAuthDeps, key: string): Promise<{ session: LoginSessionRecord; user: UserRecord } | null> {
  const found = await deps.stores.loginSessions.findWithUser(sessionIdOf(key));
  if (found === null || found.user.disabledAt !== null) return null;
  const now = deps.now();
  if (!isLive(found.session, now) || madeThroughRemovedProvider(deps, found.session)) return null;
  const seenSince = new Date(now.getTime() - SEEN_INTERVAL_MS);
  if (found.session.lastSeenAt < seenSince) await deps.stores.loginSessions.markSeen(found.session.id, now, seenSince);
  return found;
}

/**
 * A sign-in made through an identity provider that is no longer in the config (identityProviders) is over: removing
 * a provider, say one that was compromised, takes away the way in it gave, and the sessions it made with it. The
 * upstream's back-channel logout for them is then a 404, which is moot.
 */
function madeThroughRemovedProvider(deps: Pick<OAuthDeps, 'config'>, session: LoginSessionRecord): boolean {
  const providerId = session.upstreamProviderId;
  return providerId !== null && !deps.config.identityProviders.some((entry) => entry.id === providerId);
}

/** The user's live sessions, the latest sign-in first. */
export async function sessionsOfUser(deps: OAuthDeps, userId: number): Promise<LoginSessionRecord[]> {
  const sessions = await deps.stores.loginSessions.listOfUser(userId, oldestLive(deps.now()));
  return sessions.filter((session) => !madeThroughRemovedProvider(deps, session));
}

/** Ends the session the cookie's key names (a logout); what ended, or null when it had ended already. */
export function endLoginSessionByKey(deps: OAuthDeps, key: string): Promise<LoginSessionRecord | null> {
  return deps.stores.loginSessions.deleteBySessionId(sessionIdOf(key));
}

/** Ends the user's session `id` ("sign out this session"); null when the user has no such session. */
export function endSessionOfUser(deps: OAuthDeps, userId: number, id: number): Promise<LoginSessionRecord | null> {
  return deps.stores.loginSessions.deleteOfUser(userId, id);
}

/**
 * Ends every sign-in of the user, on every instance at its next request (Disable, an admin's password reset, Remove
 * all passkeys): whoever signed in with what was taken away signs in again. The clients are not told here: tokens stay
 * until revoked, and the revocation tells them.
 */
export async function endAllSignInsOfUser(deps: Pick<OAuthDeps, 'stores'>, userId: number): Promise<void> {
  await deps.stores.loginSessions.deleteAllOfUser(userId);
}

/** Ends every session of the user but `keepId` (after a password change, when the user asks); what ended. */
export function endOtherSessionsOfUser(deps: OAuthDeps, userId: number, keepId: number): Promise<LoginSessionRecord[]> {
  return deps.stores.loginSessions.deleteOthersOfUser(userId, keepId);
}
