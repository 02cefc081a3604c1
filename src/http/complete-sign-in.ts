import type { FastifyRequest } from 'fastify';
import { acrForAmr } from '../oauth/authentication-context.js';
import type { OAuthDeps } from '../oauth/deps.js';
import { federatedAcr, federatedAmr } from '../oauth/federation/upstream-amr.js';
import type { UpstreamSession } from '../oauth/sessions/login-sessions.js';
import type { UserRecord } from '../oauth/store.js';
import { DEFAULT_AFTER_LOGIN, isSafeReturnPath } from './hooks/authenticate-resource-owner.js';
import { hintedFor } from './routes/authorize/hinted-sign-in.js';
import { linkProvenIdentity } from './routes/federation/upstream-link-proven.js';
import { signInBrowser } from './start-login-session.js';

// The end of a sign-in at /login, after the password alone or after the second step too; or of a sign-in through an
// upstream identity provider (issue 37), with or without our second step after it.

declare module '@fastify/secure-session' {
  interface SessionData {
    /**
     * Signed in at an upstream identity provider as this user, the sign-in here not finished yet (the second step, or
     * proving the local account comes first); `until` (epoch ms) keeps it short.
     */
    upstreamSignIn: UpstreamSession & { userId: number; amr: string[]; until: number };
  }
}

/** The page that asked for the login, if it is a local path (no open redirect); else the default page. */
export function afterLogin(request: FastifyRequest): string {
  const returnTo = request.session.get('returnTo');
  return isSafeReturnPath(returnTo) ? returnTo : DEFAULT_AFTER_LOGIN;
}

/**
 * Signs the browser in with these RFC 8176 methods (the acr is the one they reach); where to go next. After an upstream
 * sign-in of this user (upstreamSignIn), the methods are those of the federated sign-in (upstream-amr.ts) plus these.
 */
export async function finishSignIn(deps: OAuthDeps, request: FastifyRequest, user: UserRecord, amr: string[]): Promise<string> {
  // The identity this sign-in proved the account for (/login/upstream/link), linked now that the sign-in is complete.
  await linkProvenIdentity(deps, request, user);
  const returnTo = afterLogin(request);
  // Kept across the new session's cookie: who the id_token_hint of the request going back named (hinted-sign-in.ts).
  const hinted = request.session.get('hintedSignIn');
  const upstream = request.session.get('upstreamSignIn');
  request.session.set('upstreamSignIn', undefined);
  if (upstream !== undefined && upstream.userId === user.id && upstream.until > deps.now().getTime()) {
    const { userId: _userId, amr: upstreamAmr, until: _until, ...session } = upstream;
    const method = { amr: federatedAmr(upstreamAmr, amr), acr: federatedAcr(upstreamAmr, amr, deps.config.authentication.acr) };
    await signInBrowser(deps, request, user, { ...method, upstream: session });
    amr = method.amr;
  } else {
    await signInBrowser(deps, request, user, { amr, acr: acrForAmr(amr, deps.config.authentication.acr) });
  }
  request.session.set('signedInFor', returnTo);
  if (hinted !== undefined && hintedFor(hinted, returnTo)) request.session.set('hintedSignIn', hinted);
  request.log.info({ event: 'login.succeeded', userId: user.id, amr }, 'login succeeded');
  return returnTo;
}
