import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import type { UserRecord } from '../../../oauth/store.js';
import { sha256Hex } from '../../../oauth/secrets.js';
import { findUser, isDisabled } from '../../../oauth/users/users.js';
import { sessionUser } from '../../hooks/authenticate-resource-owner.js';

// Half signed in (issue 35): after a right password, until the second step is passed, the browser carries only the
// user's id in the encrypted session cookie for a few minutes, never a login session, so no page or authorization
// request sees anyone signed in. Every handler of the second step starts from this user.

const PENDING_SECONDS = 5 * 60;

/** After the password: remember who is half signed in, and the account as the password was checked against it. */
export function keepPendingUser(deps: OAuthDeps, request: FastifyRequest, user: UserRecord): void {
  request.session.set('pendingSignIn', {
    userId: user.id,
    until: deps.now().getTime() + PENDING_SECONDS * 1000,
    account: accountVersion(user),
  });
}

/**
 * The account as the first step saw it: its password hash and its row's updated_at, which every admin change to the
 * account moves (a password set or reset, Disable and Enable). A change made while the user is half signed in ends
 * that sign-in, as it ends the finished ones: the second step would otherwise complete a sign-in made with the old
 * password, or started before a Disable that an Enable has since undone. Hashed: the cookie holds no password hash.
 */
const accountVersion = (user: UserRecord): string => sha256Hex(`${user.passwordHash}\n${user.updatedAt.getTime()}`);

/**
 * Cancelling the second step: the browser is no longer half signed in, so no code, recovery code or passkey sent
 * afterwards completes that sign-in (issue: a "Cancel" that only went to /login left it pending for its 5 minutes).
 * What else the sign-in left in the session for that user goes too: an authenticator app being set up, the upstream
 * sign-in it continues (3.19, issue 37), and an open passkey ceremony of the second step.
 */
export function endPendingSignIn(request: FastifyRequest): void {
  const pending = request.session.get('pendingSignIn');
  request.session.set('pendingSignIn', undefined);
  if (pending === undefined) return;
  if (request.session.get('totpEnrolment')?.userId === pending.userId) request.session.set('totpEnrolment', undefined);
  if (request.session.get('upstreamSignIn')?.userId === pending.userId) request.session.set('upstreamSignIn', undefined);
  if (request.session.get('upstreamLink')?.userId === pending.userId) request.session.set('upstreamLink', undefined);
  if (request.session.get('passkeyChallenge')?.purpose === 'second_factor') request.session.set('passkeyChallenge', undefined);
}

/** The half-signed-in user, or null (none, expired, or since deleted, disabled or otherwise changed). */
export async function pendingUser(deps: OAuthDeps, request: FastifyRequest): Promise<UserRecord | null> {
  const pending = request.session.get('pendingSignIn');
  if (pending === undefined || pending.until <= deps.now().getTime()) return null;
  const user = await findUser(deps, pending.userId);
  return user === null || isDisabled(user) || accountVersion(user) !== pending.account ? null : user;
}

/** A handler of the second step, given the half-signed-in user. */
export type PendingHandler<Body = unknown> = (
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: Body }>,
  reply: FastifyReply,
  user: UserRecord,
) => Promise<FastifyReply>;

/**
 * Runs `handler` with the half-signed-in user; without one (or too late) the browser goes back to /login, told why,
 * unless it had no second step under way and is signed in already (Back or its history brought it here): no sign-in
 * of its took too long then, and /login sends it on.
 */
export const withPendingUser =
  <Body>(deps: OAuthDeps, handler: PendingHandler<Body>) =>
  async (request: FastifyRequest<{ Body: Body }>, reply: FastifyReply): Promise<FastifyReply> => {
    const user = await pendingUser(deps, request);
    if (user !== null) return handler(deps, request, reply, user);
    const pending = request.session.get('pendingSignIn');
    request.session.set('pendingSignIn', undefined);
    if (pending !== undefined || (await sessionUser(deps, request)) === null)
      request.session.set('notice', request.pageLanguage.t(endedNotice(deps, pending)));
    return reply.redirect('/login', 303);
  };

// Within its time, a pending sign-in ends only because the account changed (its password, Disable, deletion).
function endedNotice(deps: OAuthDeps, pending: { until: number } | undefined): string {
  return pending !== undefined && pending.until > deps.now().getTime() ? 'secondFactor.accountChanged' : 'secondFactor.expired';
}
