import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { NotFound } from '../../../oauth/errors.js';
import { passkeyName, passkeysOfUser, removePasskey, renamePasskey } from '../../../oauth/passkeys/passkeys.js';
import { currentResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { renderError } from '../../hooks/end-user-pages.js';
import type { Translate } from '../../i18n/page-language.js';
import { ACCOUNT_PATH, renderAccountPage } from '../account/account-page.js';

// The account page's passkey forms (issue 35 item 1): rename and remove. A refused name is said at its field on the
// account page again; a passkey that is not the user's is "no such passkey", and nothing changes.

// The error pages' way back, in the page's language.
const back = (t: Translate) => ({ href: ACCOUNT_PATH, text: t('account.back') });

/** The passkey id in a path: a row id, else none (404 like another user's). */
const passkeyId = (text: string): number | null => (/^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : null);

export type PasskeyIdRequest<Body = unknown> = FastifyRequest<{ Params: { id: string }; Body: Body }>;

/** POST /account/passkeys/:id/rename. */
export async function renameOwnPasskey(deps: OAuthDeps, request: PasskeyIdRequest<{ name?: string }>, reply: FastifyReply) {
  const { t } = request.pageLanguage;
  const id = passkeyId(request.params.id);
  const owner = currentResourceOwner(request);
  const name = passkeyName(request.body?.name ?? '');
  if (name === null && id !== null && (await passkeysOfUser(deps, owner.id)).some((passkey) => passkey.id === id))
    return renderAccountPage(deps, request, reply.code(422), { passkeyRenameError: { id, message: t('passkeys.badName') } });
  if (id === null || name === null || !(await renamePasskey(deps, owner.id, id, name)))
    return renderError(reply, new NotFound(t('passkeys.notFound')), back(t));
  request.session.set('notice', t('passkeys.renamed'));
  return reply.redirect(ACCOUNT_PATH, 303);
}

/** POST /account/passkeys/:id/remove. */
export async function removeOwnPasskey(deps: OAuthDeps, request: PasskeyIdRequest, reply: FastifyReply) {
  const { t } = request.pageLanguage;
  const id = passkeyId(request.params.id);
  const owner = currentResourceOwner(request);
  const removed = id === null ? null : await removePasskey(deps, owner.id, id, request.ip);
  if (removed === null) return renderError(reply, new NotFound(t('passkeys.notFound')), back(t));
  request.log.info({ event: 'passkey.removed', userId: owner.id, passkey: removed.id }, 'passkey removed');
  request.session.set('notice', t('passkeys.removed', { name: removed.name }));
  return reply.redirect(ACCOUNT_PATH, 303);
}
