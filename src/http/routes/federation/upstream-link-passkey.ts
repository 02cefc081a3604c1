import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { finishSignIn } from '../../complete-sign-in.js';
import { authenticationOptions, completeAuthentication, passkeyProvingAccount } from '../../passkeys/authentication-ceremony.js';
import { sendJson, sendPasskeyRefusal, sendRefusal } from '../passkeys/passkey-answers.js';
import { LINK_PATH, pendingLink, signInAs } from './upstream-link.js';
import { keepProvenLink } from './upstream-link-proven.js';

// The proof of the local account with one of its passkeys (issue 37 item 3: "password or passkey"), beside the
// password form of /login/upstream/link: JSON endpoints for public/passkeys.js, as /login/passkey/* are. Only that
// account's passkeys count, with user verification, as a passkey alone; a refusal is logged and audited as theirs are.

export const LINK_PASSKEY_PATH = `${LINK_PATH}/passkey`;

const noPendingLink = (request: FastifyRequest, reply: FastifyReply) =>
  sendRefusal(reply, 400, 'invalid_request', request.pageLanguage.t('upstream.linkExpired'));

/** POST /login/upstream/link/passkey/options: options listing the local account's passkeys. */
export async function startLinkPasskey(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const pending = await pendingLink(deps, request);
  if (pending === null) return noPendingLink(request, reply);
  return sendJson(reply, await authenticationOptions(deps, request, passkeyProvingAccount(pending.user)));
}

/** POST /login/upstream/link/passkey: the assertion; right, the identity is linked and the sign-in completes. */
export async function finishLinkPasskey(
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: { response: AuthenticationResponseJSON } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const pending = await pendingLink(deps, request);
  if (pending === null) return noPendingLink(request, reply);
  const { user } = pending;
  const step = await completeAuthentication(deps, request, request.body.response, passkeyProvingAccount(user));
  if (step.outcome === 'refused') return sendPasskeyRefusal(request, reply, step, { step: 'upstream_link', userId: user.id });
  keepProvenLink(request, user, 'passkey');
  signInAs(request, user.id);
  // The passkey with user verification is two factors already: no second step after it (as at /login).
  return sendJson(reply, { redirect: await finishSignIn(deps, request, user, step.amr) });
}
