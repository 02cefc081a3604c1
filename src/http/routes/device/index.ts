import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import {
  decideDeviceAuthorization,
  enteredUserCode,
  UnknownUserCode,
  type EnteredCode,
} from '../../../oauth/device/device-verification.js';
import { limitedAddress } from '../../../oauth/limits/limited-address.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { authenticateResourceOwner, currentResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler, renderPage } from '../../hooks/end-user-pages.js';
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
 * consent page with the device warning, and approves or denies. Every form carries the session's CSRF token.
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
    const entered = await enteredOrNull(deps, request, input, true);
    if (!entered) return entryPage(request, reply.code(400), input, WRONG_CODE);
    const model = deviceConsentModel(deps, entered, currentResourceOwner(request), reply.generateCsrf(), request.pageLanguage);
    return renderPage(request, reply, 'consent.eta', { ...model });
  });

  app.post('/device/decision', { schema: { body: decisionBody }, preHandler: [authenticate, csrf] }, async (request, reply) => {
    const form = request.body as UserCodeForm;
    const entered = await enteredOrNull(deps, request, form.user_code ?? '', false);
    if (!entered) return entryPage(request, reply.code(400), form.user_code ?? '', WRONG_CODE);
    const approve = form._method?.toLowerCase() !== 'delete';
    const owner = currentResourceOwner(request);
    const approval = approve
      ? { resourceOwnerId: owner.id, authTime: owner.authTime, sessionId: owner.sessionId, amr: owner.amr, acr: owner.acr }
      : null;
    const report = auditWriteFailed(() => request.log);
    const decided = await decideDeviceAuthorization(deps, entered, approval, { ip: request.ip, report });
    if (!decided) return entryPage(request, reply.code(400), form.user_code ?? '', WRONG_CODE);
    request.log.info(
      { event: approve ? 'device_authorization.approved' : 'device_authorization.denied', clientId: entered.application.uid },
      'device authorization decided',
    );
    const { t } = request.pageLanguage;
    const outcome = approve
      ? { title: t('device.approvedTitle'), message: t('device.approved') }
      : { title: t('device.deniedTitle'), message: t('device.denied') };
    return renderPage(request, reply, 'device-done.eta', outcome);
  });
};

// A wrong or expired code shows the entry page again with this message.
const WRONG_CODE = 'device.wrongCode';

function entryPage(request: FastifyRequest, reply: FastifyReply, userCode: string, errorKey?: typeof WRONG_CODE): FastifyReply {
  const owner = currentResourceOwner(request);
  return renderPage(request, reply, 'device.eta', {
    title: request.pageLanguage.t('device.title'),
    userCode,
    error: errorKey && request.pageLanguage.t(errorKey),
    csrfToken: reply.generateCsrf(),
    username: owner.username,
  });
}

/** The entered code's authorization; null for a wrong one (counted by enteredUserCode), shown as the entry page again. */
async function enteredOrNull(deps: OAuthDeps, request: FastifyRequest, input: string, entry: boolean): Promise<EnteredCode | null> {
  try {
    return await enteredUserCode(deps, input, limitedAddress(request.ip), { entry });
  } catch (error) {
    if (error instanceof UnknownUserCode) {
      request.log.info({ event: 'device_authorization.wrong_code' }, 'wrong user code');
      return null;
    }
    throw error;
  }
}
