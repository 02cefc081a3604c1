import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import type { UserRecord } from '../../../oauth/store.js';
import { findUser, isDisabled } from '../../../oauth/users/users.js';

// Half signed in (issue 35): after a right password, until the second step is passed, the browser carries only the
// user's id in the encrypted session cookie for a few minutes, never a login session, so no page or authorization
// request sees anyone signed in. Every handler of the second step starts from this user.

const PENDING_SECONDS = 5 * 60;

/** After the password: remember who is half signed in. */
export function keepPendingUser(deps: OAuthDeps, request: FastifyRequest, user: UserRecord): void {
  request.session.set('pendingSignIn', { userId: user.id, until: deps.now().getTime() + PENDING_SECONDS * 1000 });
}

/** The half-signed-in user, or null (none, expired, or since deleted or disabled). */
export async function pendingUser(deps: OAuthDeps, request: FastifyRequest): Promise<UserRecord | null> {
  const pending = request.session.get('pendingSignIn');
  if (pending === undefined || pending.until <= deps.now().getTime()) return null;
  const user = await findUser(deps, pending.userId);
  return user === null || isDisabled(user) ? null : user;
}

/** A handler of the second step, given the half-signed-in user. */
export type PendingHandler<Body = unknown> = (
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: Body }>,
  reply: FastifyReply,
  user: UserRecord,
) => Promise<FastifyReply>;

/** Runs `handler` with the half-signed-in user; without one (or too late) the browser goes back to /login, told why. */
export const withPendingUser =
  <Body>(deps: OAuthDeps, handler: PendingHandler<Body>) =>
  async (request: FastifyRequest<{ Body: Body }>, reply: FastifyReply): Promise<FastifyReply> => {
    const user = await pendingUser(deps, request);
    if (user !== null) return handler(deps, request, reply, user);
    request.session.set('pendingSignIn', undefined);
    request.session.set('notice', request.pageLanguage.t('secondFactor.expired'));
    return reply.redirect('/login', 303);
  };
