import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acrForAmr } from '../../../oauth/authentication-context.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { DEFAULT_AFTER_LOGIN, isSafeReturnPath } from '../../hooks/authenticate-resource-owner.js';
import { authenticationOptions, completeAuthentication } from '../../passkeys/authentication-ceremony.js';
import { signInBrowser } from '../../start-login-session.js';
import { sendJson, sendPasskeyRefusal } from './passkey-answers.js';

// Signing in on /login with a passkey alone (issue 35 item 1): the page's script asks for options, the browser's
// authenticator answers, and a verified answer signs the browser in as the passkey's user, as a password does.

/** POST /login/passkey/options: options for navigator.credentials.get(), no credentials listed (discoverable). */
export async function startPasskeySignIn(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply) {
  return sendJson(reply, await authenticationOptions(deps, request));
}

/** POST /login/passkey: the assertion. Every refusal is logged at warn and audited; the answer says no more than "no". */
export async function finishPasskeySignIn(
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: { response: AuthenticationResponseJSON } }>,
  reply: FastifyReply,
) {
  const signIn = await completeAuthentication(deps, request, request.body.response);
  if (signIn.outcome === 'refused') return sendPasskeyRefusal(request, reply, signIn);
  const { user, amr } = signIn;
  const returnTo = request.session.get('returnTo');
  const redirect = isSafeReturnPath(returnTo) ? returnTo : DEFAULT_AFTER_LOGIN;
  await signInBrowser(deps, request, user, { amr, acr: acrForAmr(amr, deps.config.authentication.acr) });
  request.session.set('signedInFor', redirect);
  request.log.info({ event: 'login.succeeded', userId: user.id, amr }, 'login succeeded with a passkey');
  return sendJson(reply, { redirect });
}
