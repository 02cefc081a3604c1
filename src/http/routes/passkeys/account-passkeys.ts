import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PageLocale } from '../../../config/page-locales.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import type { PasskeyRecord } from '../../../oauth/passkeys/passkey-store.js';
import { attemptOrigin } from '../../attempt-origin.js';
import { isSynced, passkeyName, passkeysOfUser, proveRegistrationOwner, RECENT_SIGN_IN_SECONDS } from '../../../oauth/passkeys/passkeys.js';
import { findUser } from '../../../oauth/users/users.js';
import { currentResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { pageTime } from '../../page-time.js';
import { passkeyScriptTags } from '../../passkeys/passkey-scripts.js';
import { completeRegistration, registrationOptions } from '../../passkeys/registration-ceremony.js';
import { sendJson, sendRefusal } from './passkey-answers.js';

// The account page's passkeys (issue 35 item 1): its section's view model and the registration ceremony's two JSON
// endpoints (the page's script calls them, with the CSRF token in a header); rename and remove, its HTML forms, are
// account-passkey-forms.ts.

const ACCOUNT_PATH = '/account';

/** A rename refused: which passkey's field says why. */
export interface PasskeyRenameError {
  id: number;
  message: string;
}

/** The account page's passkey section: the list (with a refused rename's message) and the registration form's scripts. */
export async function passkeySection(deps: OAuthDeps, userId: number, locale: PageLocale, renameError?: PasskeyRenameError) {
  const passkeys = await passkeysOfUser(deps, userId);
  return {
    list: passkeys.map((passkey) => ({
      ...passkeyView(passkey, locale),
      renameError: renameError?.id === passkey.id ? renameError.message : null,
    })),
    scripts: passkeyScriptTags(),
    recentMinutes: RECENT_SIGN_IN_SECONDS / 60,
    withoutJavaScript: PASSKEY_WITHOUT_JAVASCRIPT_PATH,
  };
}

function passkeyView(passkey: PasskeyRecord, locale: PageLocale) {
  return {
    id: passkey.id,
    name: passkey.name,
    created: pageTime(passkey.createdAt, locale),
    lastUsed: passkey.lastUsedAt === null ? null : pageTime(passkey.lastUsedAt, locale),
    synced: isSynced(passkey),
  };
}

/**
 * POST /account/passkeys/options: the options for navigator.credentials.create(), once the user has proved it is them
 * (proveRegistrationOwner: the current password, or a recent sign-in). Only then is a registration challenge kept, so
 * POST /account/passkeys has nothing to answer without that proof. A refusal is 401 (429 when locked out)
 * `access_denied`, its sentence in the page's language, which the page's script shows.
 */
export async function startRegistration(deps: OAuthDeps, request: FastifyRequest<{ Body: { current?: string } }>, reply: FastifyReply) {
  const { t } = request.pageLanguage;
  const owner = currentResourceOwner(request);
  const user = await findUser(deps, owner.id);
  if (user === null) return sendRefusal(reply, 404, 'not_found', t('error.noSuchUser'));
  const proof = { password: request.body?.current ?? '', authTime: owner.authTime };
  const proved = await proveRegistrationOwner(deps, user, proof, attemptOrigin(request));
  if (proved !== 'ok') {
    request.log.info({ event: 'passkey.registration_refused', userId: user.id, reason: proved }, 'passkey registration not proved');
    if (typeof proved === 'object') {
      const lockedOut = t('login.lockedOut', { seconds: proved.retryAfter });
      return sendRefusal(reply.header('retry-after', String(proved.retryAfter)), 429, 'access_denied', lockedOut);
    }
    const minutes = RECENT_SIGN_IN_SECONDS / 60;
    const sentence = proved === 'wrong_password' ? t('account.wrongPassword') : t('passkeys.signInAgain', { minutes });
    return sendRefusal(reply, 401, 'access_denied', sentence);
  }
  return sendJson(reply, await registrationOptions(deps, request, user, await passkeysOfUser(deps, user.id)));
}

export interface RegistrationBody {
  name: string;
  response: RegistrationResponseJSON;
}

/** POST /account/passkeys: the authenticator's answer; the passkey is stored only when every check passed. */
export async function finishRegistration(deps: OAuthDeps, request: FastifyRequest<{ Body: RegistrationBody }>, reply: FastifyReply) {
  const { t } = request.pageLanguage;
  const user = await findUser(deps, currentResourceOwner(request).id);
  if (user === null) return sendRefusal(reply, 404, 'not_found', request.pageLanguage.t('error.noSuchUser'));
  const name = passkeyName(request.body.name);
  if (name === null) return sendRefusal(reply, 400, 'invalid_request', t('passkeys.badName'));
  const registration = await completeRegistration(deps, request, user, { name, response: request.body.response });
  if (registration.outcome === 'refused') {
    request.log.warn(
      { event: 'passkey.registration_refused', userId: user.id, reason: registration.reason },
      'passkey registration refused',
    );
    return sendRefusal(reply, 400, 'invalid_request', t(`passkeys.${registration.said}`));
  }
  const { passkey } = registration;
  request.log.info({ event: 'passkey.registered', userId: user.id, passkey: passkey.id }, 'passkey registered');
  request.session.set('notice', t('passkeys.registered', { name: passkey.name }));
  return sendJson(reply.code(201), { id: passkey.id, name: passkey.name });
}

/** Where the registration form posts when its script does not take it over. */
export const PASSKEY_WITHOUT_JAVASCRIPT_PATH = '/account/passkeys/without-javascript';

/**
 * POST /account/passkeys/without-javascript: the registration form sent by the browser itself (JavaScript off, the
 * script not loaded, or no WebAuthn). Only the browser's WebAuthn API makes a passkey, so nothing is registered: the
 * account page says what is needed. SPEC 3.6, pages usable without JavaScript: a POST, so the form's CSRF token never
 * ends up in an address, the history or a Referer, as a GET of the form would put it.
 */
export function passkeyNeedsJavaScript(request: FastifyRequest, reply: FastifyReply) {
  request.session.set('notice', request.pageLanguage.t('passkeys.needsJavaScript'));
  return reply.redirect(ACCOUNT_PATH, 303);
}
