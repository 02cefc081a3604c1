import type { FastifyRequest } from 'fastify';
import { acrForAmr } from '../oauth/authentication-context.js';
import type { OAuthDeps } from '../oauth/deps.js';
import type { UserRecord } from '../oauth/store.js';
import { DEFAULT_AFTER_LOGIN, isSafeReturnPath } from './hooks/authenticate-resource-owner.js';
import { signInBrowser } from './start-login-session.js';

// The end of a sign-in at /login, after the password alone or after the second step too.

/** The page that asked for the login, if it is a local path (no open redirect); else the default page. */
export function afterLogin(request: FastifyRequest): string {
  const returnTo = request.session.get('returnTo');
  return isSafeReturnPath(returnTo) ? returnTo : DEFAULT_AFTER_LOGIN;
}

/** Signs the browser in with these RFC 8176 methods (the acr is the one they reach); where to go next. */
export async function finishSignIn(deps: OAuthDeps, request: FastifyRequest, user: UserRecord, amr: string[]): Promise<string> {
  const returnTo = afterLogin(request);
  await signInBrowser(deps, request, user, { amr, acr: acrForAmr(amr, deps.config.authentication.acr) });
  request.session.set('signedInFor', returnTo);
  request.log.info({ event: 'login.succeeded', userId: user.id, amr }, 'login succeeded');
  return returnTo;
}
