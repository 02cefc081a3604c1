import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { TooManyAttempts } from '../../../oauth/errors.js';
import {
  AnsweredUserCode,
  decideDeviceAuthorization,
  enteredUserCode,
  UnknownUserCode,
  UserCodeEnteredTooOften,
  type EnteredCode,
} from '../../../oauth/device/device-verification.js';
import { attemptOrigin } from '../../attempt-origin.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { authenticateResourceOwner, currentResourceOwner, redirectToLogin } from '../../hooks/authenticate-resource-owner.js';
import { meetsClientSecondFactorPolicy } from '../../../oauth/authorization/authorization-interaction.js';
import { endUserErrorHandler, renderPage } from '../../hooks/end-user-pages.js';
import type { Translate } from '../../i18n/page-language.js';
import type { RouteOptions } from '../../route-options.js';
import { deviceConsentModel } from './device-consent-view.js';

const userCodeField = {
  type: 'string',
  maxLength: 64,
  description: 'The user code the device shows (XXXX-XXXX; case and dashes ignored).',
};
const entryQuery = { type: 'object', properties: { user_code: userCodeField } } as const;
const entryBody = {
  type: 'object',
  properties: { user_code: userCodeField, _csrf: { type: 'string', description: 'CSRF token of the form.' } },
} as const;
const decisionBody = {
  type: 'object',
  properties: {
    ...entryBody.properties,
    _method: { type: 'string', description: '"delete": deny (the consent form\'s Deny button); otherwise approve.' },
  },
} as const;

type UserCodeForm = { user_code?: string; _method?: string };

/**
 * /device (RFC 8628 section 3.3): the verification URI. The person signs in (the login's way back, as for
 * /oauth/authorize), types the device's user code (verification_uri_complete fills it in), sees the code flow's
 * consent page with the device warning, and approves or denies. Every form carries the session's CSRF token. Each
 * accepted POST redirects to a page of its own (POST/redirect/GET), so Back never asks to send a form again.
 */
export const deviceRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.setErrorHandler(endUserErrorHandler);
  const authenticate = authenticateResourceOwner(deps);
  const csrf = app.csrfProtection;

  app.get('/device', { schema: { querystring: entryQuery }, preHandler: authenticate }, (request, reply) =>
    entryPage(request, reply, (request.query as UserCodeForm).user_code ?? ''),
  );

  app.post('/device', { schema: { body: entryBody }, preHandler: [authenticate, csrf] }, async (request, reply) => {
    const input = (request.body as UserCodeForm).user_code ?? '';
    const entered = await enteredOrRefused(deps, request, input, true);
    if (isRefusal(entered)) return refusedEntry(request, reply, input, entered);
    request.session.set('deviceCodeEntered', entered.authorization.id);
    request.session.set('deviceUserCode', input);
    return reply.redirect(CONSENT_PATH, 303);
  });

  app.get(CONSENT_PATH, { preHandler: authenticate }, async (request, reply) => {
    const input = request.session.get('deviceUserCode');
    if (input === undefined) return reply.redirect('/device', 303);
    // Entered already (and counted then): shown again, as long as it is still pending and still this browser's.
    const entered = await enteredOrRefused(deps, request, input, false);
    if (isRefusal(entered)) return refusedEntry(request, reply, input, entered);
    if (request.session.get('deviceCodeEntered') !== entered.authorization.id) return entryPage(request, reply, input);
    const owner = currentResourceOwner(request);
    if (!meetsClientSecondFactorPolicy(deps, entered.application.uid, owner)) return secondStepFirst(request, reply, input);
    const model = deviceConsentModel(deps, entered, owner, reply.generateCsrf(), request.pageLanguage);
    return renderPage(request, reply, 'consent.eta', { ...model });
  });

  app.post('/device/decision', { schema: { body: decisionBody }, preHandler: [authenticate, csrf] }, async (request, reply) => {
    const form = request.body as UserCodeForm;
    const entered = await enteredOrRefused(deps, request, form.user_code ?? '', false);
    if (isRefusal(entered)) return refusedEntry(request, reply, form.user_code ?? '', entered);
    // RFC 8628 section 5.4: the code is entered, with its warning seen, before anything is decided; a decision posted for
    // a code this browser did not enter goes back to entering it.
    if (request.session.get('deviceCodeEntered') !== entered.authorization.id) return entryPage(request, reply, form.user_code ?? '');
    const approve = form._method?.toLowerCase() !== 'delete';
    const owner = currentResourceOwner(request);
    if (approve && !meetsClientSecondFactorPolicy(deps, entered.application.uid, owner))
      return secondStepFirst(request, reply, form.user_code ?? '');
    request.session.set('deviceCodeEntered', undefined);
    request.session.set('deviceUserCode', undefined);
    const approval = approve
      ? { resourceOwnerId: owner.id, authTime: owner.authTime, sessionId: owner.sessionId, amr: owner.amr, acr: owner.acr }
      : null;
    const report = auditWriteFailed(() => request.log);
    const decided = await decideDeviceAuthorization(deps, entered, approval, { ip: request.ip, report });
    // Checked moments ago, so another tab's decision came first (a races audit: "not valid" misled a user who denied).
    if (!decided) return refusedEntry(request, reply, form.user_code ?? '', ANSWERED_ALREADY);
    request.session.set('deviceCodeAnswered', entered.authorization.id);
    request.log.info(
      { event: approve ? 'device_authorization.approved' : 'device_authorization.denied', clientId: entered.application.uid },
      'device authorization decided',
    );
    request.session.set('deviceOutcome', approve ? 'approved' : 'denied');
    return reply.redirect(DONE_PATH, 303);
  });

  app.get(DONE_PATH, { preHandler: authenticate }, (request, reply) => {
    const outcome = request.session.get('deviceOutcome');
    if (outcome === undefined) return reply.redirect('/device', 303);
    request.session.set('deviceOutcome', undefined);
    const { t } = request.pageLanguage;
    const page =
      outcome === 'approved'
        ? { title: t('device.approvedTitle'), message: t('device.approved') }
        : { title: t('device.deniedTitle'), message: t('device.denied') };
    return renderPage(request, reply, 'device-done.eta', page);
  });
};

const CONSENT_PATH = '/device/consent';
const DONE_PATH = '/device/done';

// A wrong or expired code, a code entered too often, or an address locked out for wrong codes (RFC 8628 section
// 5.1), shows the entry page again with a message in the page's language.
interface Refusal {
  status: 400 | 429;
  message: (t: Translate) => string;
  retryAfter?: number;
}

const WRONG_CODE: Refusal = { status: 400, message: (t) => t('device.wrongCode') };
const ANSWERED_ALREADY: Refusal = { status: 400, message: (t) => t('device.answeredAlready') };
const ENTERED_TOO_OFTEN: Refusal = { status: 400, message: (t) => t('device.enteredTooOften') };

const isRefusal = (entry: EnteredCode | Refusal): entry is Refusal => 'status' in entry;

/**
 * authentication.requireSecondFactor names the device's client and this browser signed in without the second step: it
 * signs in again, with it, and comes back to the code's entry (a sign-in starts a new session, without the entered code).
 */
function secondStepFirst(request: FastifyRequest, reply: FastifyReply, userCode: string): FastifyReply {
  const returnTo = `/device?${new URLSearchParams({ user_code: userCode })}`;
  request.session.set('reauthenticate', true);
  request.session.set('secondFactorWanted', returnTo);
  return redirectToLogin(request, reply, returnTo);
}

function entryPage(request: FastifyRequest, reply: FastifyReply, userCode: string, error?: string): FastifyReply {
  const owner = currentResourceOwner(request);
  return renderPage(request, reply, 'device.eta', {
    title: request.pageLanguage.t('device.title'),
    userCode,
    error,
    csrfToken: reply.generateCsrf(),
    username: owner.username,
  });
}

function refusedEntry(request: FastifyRequest, reply: FastifyReply, userCode: string, refusal: Refusal): FastifyReply {
  if (refusal.retryAfter !== undefined) reply.header('retry-after', String(refusal.retryAfter));
  return entryPage(request, reply.code(refusal.status), userCode, refusal.message(request.pageLanguage.t));
}

/** The entered code's authorization, or why the entry page shows again (a wrong code is counted by enteredUserCode). */
async function enteredOrRefused(deps: OAuthDeps, request: FastifyRequest, input: string, entry: boolean): Promise<EnteredCode | Refusal> {
  try {
    const enteredHere = [request.session.get('deviceCodeEntered'), request.session.get('deviceCodeAnswered')];
    const tooOftenHere = request.session.get('deviceCodeTooOften');
    return await enteredUserCode(deps, input, attemptOrigin(request), { entry, enteredHere, tooOftenHere });
  } catch (error) {
    if (error instanceof AnsweredUserCode) {
      request.log.info({ event: 'device_authorization.answered_already' }, 'user code answered already');
      return ANSWERED_ALREADY;
    }
    if (error instanceof UnknownUserCode) {
      request.log.info({ event: 'device_authorization.wrong_code' }, 'wrong user code');
      return WRONG_CODE;
    }
    if (error instanceof UserCodeEnteredTooOften) {
      request.session.set('deviceCodeTooOften', error.authorizationId);
      request.log.info({ event: 'device_authorization.entered_too_often' }, error.description);
      return ENTERED_TOO_OFTEN;
    }
    if (error instanceof TooManyAttempts) {
      const seconds = error.retryAfter ?? 0;
      request.log.info({ event: 'device_authorization.locked_out' }, error.description);
      return { status: 429, message: (t) => t('device.lockedOut', { seconds }), retryAfter: seconds };
    }
    throw error;
  }
}
