import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { OAuthDeps } from '../../oauth/deps.js';
import { findUser } from '../../oauth/users.js';
import { Unauthorized } from '../../oauth/errors.js';
import { noStore } from '../no-store.js';
import { renderError } from './end-user-pages.js';

/** The logged-in end user, as the pages need it. */
export interface SignedInUser {
  id: number;
  username: string;
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
const MAX_RETURN_PATH = 2048;

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
    const userId = request.session.get('userId');
    const user = typeof userId === 'number' ? await findUser(deps, userId) : null;
    if (user) {
      request.resourceOwner = { id: user.id, username: user.username };
      return;
    }
    // A user deleted since logging in is logged out.
    if (userId !== undefined) request.session.set('userId', undefined);
    if (request.method === 'GET' || request.method === 'HEAD') {
      if (isSafeReturnPath(request.url)) request.session.set('returnTo', request.url);
      return noStore(reply, { pragma: false }).redirect('/login', 302);
    }
    return renderError(reply, new Unauthorized('You need to log in first.'), { href: '/login', text: 'Log in' });
  };
}

/** The user set by authenticateResourceOwner; routes without that hook have none. */
export function currentResourceOwner(request: FastifyRequest): SignedInUser {
  if (!request.resourceOwner) throw new Error('authenticateResourceOwner did not run on this route');
  return request.resourceOwner;
}
