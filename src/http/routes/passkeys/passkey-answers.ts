import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticationOutcome } from '../../passkeys/authentication-ceremony.js';
import { noStore } from '../../no-store.js';

// The passkey endpoints' JSON answers. Options carry a challenge and errors a reason: neither may be cached.

export const sendJson = (reply: FastifyReply, body: object): FastifyReply => noStore(reply, { pragma: false }).send(body);

/** A refusal as the product's JSON errors are shaped (error, error_description); the page's script shows the text. */
export const sendRefusal = (reply: FastifyReply, status: number, error: string, description: string): FastifyReply =>
  sendJson(reply.code(status), { error, error_description: description });

/**
 * A refused passkey sign-in (alone or as a second step), logged at warn (the domain audited it); the answer says no
 * more than "no": an unknown, cloned or other user's credential all read "This passkey cannot sign you in here".
 */
export function sendPasskeyRefusal(
  request: FastifyRequest<{ Body: { response: AuthenticationResponseJSON } }>,
  reply: FastifyReply,
  { reason, detail }: Extract<AuthenticationOutcome, { outcome: 'refused' }>,
  context: object = {},
): FastifyReply {
  const { t } = request.pageLanguage;
  const credentialId = request.body.response.id;
  request.log.warn({ event: 'login.passkey_refused', ...context, reason, detail, credentialId }, 'passkey sign-in refused');
  if (reason === 'no_ceremony') return sendRefusal(reply, 400, 'invalid_request', t('passkeys.signInFailed'));
  return sendRefusal(reply, 401, 'access_denied', t('passkeys.refused'));
}
