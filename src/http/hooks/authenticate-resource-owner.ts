import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { OAuthDeps } from '../../oauth/deps.js';
import { liveLoginSession } from '../../oauth/sessions/login-sessions.js';
import { Unauthorized } from '../../oauth/errors.js';
import { noStore } from '../no-store.js';
import { redirectStatusAfter } from '../redirect-status.js';
import { renderError } from './end-user-pages.js';

/** The logged-in end user, as the pages and the authorization need it. */
export interface SignedInUser {
  id: number;
  username: string;
  /** The OpenID Connect sub. */
  subject: string;
  /** When they signed in. */
  authTime: Date | null;
  /** The login session's id, each client's sid derived from it (client-sid.ts). */
  sessionId: string | null;
  /** RFC 8176 methods of the sign-in (login_sessions.amr). */
  amr: string[];
  /** The sign-in's authentication context class, if one was reached (login_sessions.acr). */
  acr: string | null;
  /** The login_sessions row: the account page marks "this device" by it. */
  loginSessionId: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authenticateResourceOwner on the routes it guards. */
    resourceOwner?: SignedInUser;
  }
}

/** Where a person goes after logging in when no page asked for the login. */
export const DEFAULT_AFTER_LOGIN = '/oauth/authorized_applications';

// Cookies hold about 4 KB; a longer URL is not remembered (the person lands on the default page instead).
export const MAX_RETURN_PATH = 2048;

/**
 * Only a path on this server may be a return target, never an absolute or scheme-relative URL (no open
 * redirect): it starts with one "/", and has no backslash (browsers read "/\host" as "//host"), whitespace or
 * control character.
 */
export function isSafeReturnPath(path: unknown): path is string {
  return typeof path === 'string' && path.length <= MAX_RETURN_PATH && /^\/(?![/\\])[\x21-\x5B\x5D-\x7E]*$/.test(path);
}

/**
 * preHandler (SPEC 3.5, reference 4): the session's user, or a login first. A GET remembers its URL and goes
 * to /login, which comes back to it; any other method cannot be replayed after a login and gets 401.
 */
export function authenticateResourceOwner(deps: OAuthDeps): preHandlerAsyncHookHandler {
  return async function authenticateResourceOwner(request: FastifyRequest, reply: FastifyReply) {
    const owner = await sessionUser(deps, request);
    if (owner) {
      request.resourceOwner = owner;
      return;
    }
    if (request.method === 'GET' || request.method === 'HEAD') return redirectToLogin(request, reply, request.url);
    return renderError(reply, new Unauthorized(request.pageLanguage.t('error.logInFirst')), {
      href: '/login',
      text: request.pageLanguage.t('error.logIn'),
    });
  };
}

/**
 * The session's user, or null. The cookie's key must still name a live login_sessions row (ended on any instance,
 * or unused for the session lifetime, it does not), and the user be enabled: a disabled user's session must not
 * approve anything (OpenID Connect prompt=none then answers login_required). A dead key leaves the cookie.
 */
export async function sessionUser(deps: OAuthDeps, request: FastifyRequest): Promise<SignedInUser | null> {
  const key = request.session.get('sessionKey');
  if (typeof key !== 'string') return null;
  const live = await liveLoginSession(deps, key);
  if (live === null) {
    request.session.set('sessionKey', undefined);
    return null;
  }
  const { session, user } = live;
  return {
    id: user.id,
    username: user.username,
    subject: user.subject,
    authTime: session.authTime,
    sessionId: session.openidSessionId,
    amr: session.amr,
    acr: session.acr,
    loginSessionId: session.id,
  };
}

/** To /login, which comes back to `returnTo` (a path on this server) once the user has signed in. */
export function redirectToLogin(request: FastifyRequest, reply: FastifyReply, returnTo: string): FastifyReply {
  if (isSafeReturnPath(returnTo)) request.session.set('returnTo', returnTo);
  return noStore(reply, { pragma: false }).redirect('/login', redirectStatusAfter(request));
}

/** The user set by authenticateResourceOwner; routes without that hook have none. */
export function currentResourceOwner(request: FastifyRequest): SignedInUser {
  if (!request.resourceOwner) throw new Error('authenticateResourceOwner did not run on this route');
  return request.resourceOwner;
}
