import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { finishSignIn } from '../../complete-sign-in.js';
import { authenticationOptions, completeAuthentication, passkeyAfterPassword } from '../../passkeys/authentication-ceremony.js';
import { pendingUser } from '../second-factor/pending-sign-in.js';
import { sendJson, sendPasskeyRefusal, sendRefusal } from './passkey-answers.js';

// A passkey as the second factor after a right password (issue 35 item 1): the same ceremony as a passkey alone
// (authentication-ceremony.ts), but only the half-signed-in user's passkeys count and user verification is only
// preferred. JSON endpoints for public/passkeys.js, as /login/passkey/* are; a refusal is logged and audited as
// theirs are.

export const PASSKEY_SECOND_STEP_PATH = '/login/second-factor/passkey';

/** Without a half-signed-in user (none, expired, disabled) there is no second step: the page's script shows why. */
const noPendingSignIn = (request: FastifyRequest, reply: FastifyReply) =>
  sendRefusal(reply, 400, 'invalid_request', request.pageLanguage.t('secondFactor.expired'));

/** POST /login/second-factor/passkey/options: options listing the pending user's passkeys. */
export async function startPasskeySecondStep(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const user = await pendingUser(deps, request);
  if (user === null) return noPendingSignIn(request, reply);
  return sendJson(reply, await authenticationOptions(deps, request, passkeyAfterPassword(user)));
}

/** POST /login/second-factor/passkey: the assertion; right, the sign-in completes with amr pwd and hwk or swk (the phr acr). */
export async function finishPasskeySecondStep(
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: { response: AuthenticationResponseJSON } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const user = await pendingUser(deps, request);
  if (user === null) return noPendingSignIn(request, reply);
  const step = await completeAuthentication(deps, request, request.body.response, passkeyAfterPassword(user));
  if (step.outcome === 'refused') return sendPasskeyRefusal(request, reply, step, { step: 'second_factor', userId: user.id });
  return sendJson(reply, { redirect: await finishSignIn(deps, request, user, step.amr) });
}
