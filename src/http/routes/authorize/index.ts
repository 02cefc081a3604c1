import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { approveAuthorization, consentMayBeSkipped } from '../../../oauth/authorization-approval.js';
import {
  readAuthorizationParameters,
  validateAuthorizationRequest,
  validateDenial,
  type AuthorizationFailure,
  type AuthorizationRequest,
} from '../../../oauth/authorization-request.js';
import { authorizationIssuer, errorDelivery, successDelivery } from '../../../oauth/authorization-response.js';
import { InvalidRequest } from '../../../oauth/errors.js';
import { authenticateResourceOwner, currentResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler, renderPage } from '../../hooks/end-user-pages.js';
import { PUBLIC_DIR } from '../../plugins/views.js';
import type { RouteOptions } from '../../route-options.js';
import { consentModel } from './consent-view.js';
import { NATIVE_PATH, sendDelivery } from './deliver.js';

// Any value is accepted here: a repeated parameter must reach the rules (invalid_request, redirected or shown
// depending on what is verified by then), not fail schema validation first.
const anyValue = (description: string) => ({ description });
const parametersSchema = {
  type: 'object',
  properties: {
    client_id: anyValue('The client identifier (RFC 6749 section 2.2).'),
    redirect_uri: anyValue('Required; must equal a registered redirect URI (loopback IPs: any port).'),
    response_type: anyValue('code, or token when the implicit flow is enabled.'),
    response_mode: anyValue('query, fragment or form_post (token: fragment or form_post).'),
    scope: anyValue('Space-separated scopes; blank: the default scopes.'),
    state: anyValue('Opaque value returned to the client.'),
    code_challenge: anyValue('PKCE challenge (RFC 7636).'),
    code_challenge_method: anyValue('S256, or plain when enabled.'),
    _csrf: anyValue('POST and DELETE: the CSRF token of the consent form.'),
    _method: anyValue('POST: "delete" makes it a denial (HTML forms cannot send DELETE).'),
  },
} as const;

const nativeQuery = { type: 'object', properties: { code: anyValue('The authorization code to show.') } } as const;

/** /oauth/authorize: new (GET), create (POST), destroy (DELETE) and the out-of-band page (SPEC 3.5, reference 4). */
export const authorizeRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  // STYLE 5: errors here are pages on this server; only the delivery below ever redirects, to a verified URI.
  app.setErrorHandler(endUserErrorHandler);
  const authenticate = authenticateResourceOwner(deps);
  const issuer = authorizationIssuer(deps.config.baseUrl);
  const formPostScript = readFileSync(join(PUBLIC_DIR, 'form-post.js'));

  const refuse = (request: FastifyRequest, reply: FastifyReply, failure: AuthorizationFailure, status: 302 | 303) => {
    const redirected = failure.redirect !== null;
    request.log.info({ event: 'authorization.refused', rule: failure.rule, error: failure.error.code, redirected }, failure.error.description);
    return sendDelivery(reply, errorDelivery(failure, issuer), status);
  };

  const approve = async (request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest, status: 302 | 303) => {
    const result = await approveAuthorization(deps, authorization, currentResourceOwner(request).id);
    const event = result.responseType === 'code' ? 'authorization.code_issued' : 'token.issued';
    if (result.responseType !== 'code') app.metrics.tokensIssued('implicit');
    request.log.info({ event, grantType: result.responseType === 'code' ? undefined : 'implicit', clientId: authorization.application.uid }, 'authorized');
    return sendDelivery(reply, successDelivery(authorization, result, issuer, deps.now()), status);
  };

  // Reference 4.6: deny validates nothing in Doorkeeper; here client and redirect URI first (SPEC 8).
  const deny = async (request: FastifyRequest, reply: FastifyReply) =>
    refuse(request, reply, await validateDenial(deps, readAuthorizationParameters(request.body)), 303);

  app.get('/assets/form-post.js', async (_request, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(formPostScript),
  );

  // HEAD is not served: with consent skipped, a GET issues a code.
  app.get('/oauth/authorize', { schema: { querystring: parametersSchema }, exposeHeadRoute: false, preHandler: authenticate }, async (request, reply) => {
    const validation = await validateAuthorizationRequest(deps, readAuthorizationParameters(request.query));
    if (!validation.ok) return refuse(request, reply, validation, 302);
    const owner = currentResourceOwner(request);
    if (await consentMayBeSkipped(deps, validation.request, owner.id)) return approve(request, reply, validation.request, 302);
    return renderPage(request, reply, 'consent.eta', { ...consentModel(deps, validation.request, owner, reply.generateCsrf()) });
  });

  app.post('/oauth/authorize', { schema: { body: parametersSchema }, preHandler: [authenticate, app.csrfProtection] }, async (request, reply) => {
    if (isDeleteOverride(request.body)) return deny(request, reply);
    // STYLE 14: the hidden fields are a new request, validated again in full.
    const validation = await validateAuthorizationRequest(deps, readAuthorizationParameters(request.body));
    if (!validation.ok) return refuse(request, reply, validation, 303);
    return approve(request, reply, validation.request, 303);
  });

  app.delete('/oauth/authorize', { preHandler: [authenticate, app.csrfProtection] }, deny);

  // Reference 4.7: shows the code from the URL and looks nothing up.
  app.get(NATIVE_PATH, { schema: { querystring: nativeQuery }, preHandler: authenticate }, async (request, reply) => {
    const code = (request.query as Record<string, unknown>).code;
    if (typeof code !== 'string' || code === '') throw InvalidRequest.missingParameter('code');
    return renderPage(request, reply, 'native-code.eta', { title: 'Authorization code', code });
  });
};

function isDeleteOverride(body: unknown): boolean {
  const method = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)._method : undefined;
  return typeof method === 'string' && method.toLowerCase() === 'delete';
}
