import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { authenticateResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler } from '../../hooks/end-user-pages.js';
import { formBodyOnly } from '../../hooks/form-body-only.js';
import { PUBLIC_DIR } from '../../plugins/views.js';
import type { RouteOptions } from '../../route-options.js';
import { NATIVE_PATH } from './deliver.js';
import { refuseHead } from '../../refuse-head.js';

// Any value is accepted here: a repeated parameter must reach the rules (invalid_request, redirected or shown
// depending on what is verified by then), not fail schema validation first.
const anyValue = (description: string) => ({ description });
const parametersSchema = {
  type: 'object',
  properties: {
    client_id: anyValue('The client identifier (RFC 6749 section 2.2).'),
    redirect_uri: anyValue('Required; must equal a registered redirect URI (loopback IPs: any port).'),
    response_type: anyValue('code, or token when the implicit flow is enabled.'),
    response_mode: anyValue(
      'query, fragment or form_post (token: fragment or form_post); with OpenID Connect on, JARM: jwt, query.jwt, fragment.jwt or form_post.jwt (token: not query.jwt).',
    ),
    scope: anyValue('Space-separated scopes; blank: the default scopes.'),
    state: anyValue('Opaque value returned to the client.'),
    code_challenge: anyValue('PKCE challenge (RFC 7636).'),
    code_challenge_method: anyValue('S256, or plain when enabled.'),
    nonce: anyValue('OpenID Connect: echoed in the ID token.'),
    prompt: anyValue('OpenID Connect: none, login, consent (space-separated).'),
    max_age: anyValue('OpenID Connect: seconds since the last sign-in beyond which the user signs in again.'),
    login_hint: anyValue('OpenID Connect: pre-fills the login form.'),
    idp_hint: anyValue('The id of an identity provider (config identityProviders) to sign in with, instead of the login page.'),
    kc_idp_hint: anyValue("Keycloak's name of idp_hint."),
    id_token_hint: anyValue('OpenID Connect: an ID token of this server naming the expected user.'),
    ui_locales: anyValue('OpenID Connect: the languages of the sign-in and consent pages, most preferred first (Core 3.1.2.1).'),
    claims: anyValue('OpenID Connect: claims asked for by name, a JSON object of userinfo and id_token requests (Core 5.5).'),
    acr_values: anyValue('OpenID Connect: the authentication context classes asked for, most preferred first (Core 3.1.2.1).'),
    request: anyValue("RFC 9101: the request as a JWT signed with one of the client's registered keys; its claims are the request."),
    request_uri: anyValue('RFC 9126: the request_uri POST /oauth/par answered; its parameters replace all others but client_id.'),
    resource: anyValue('RFC 8707: an API the token is for (may be repeated).'),
    authorization_details: anyValue('RFC 9396: a JSON array of the details asked for, each of a type a resource declares.'),
    dpop_jkt: anyValue('RFC 9449 section 10: the thumbprint of the key the code exchange must prove.'),
    _csrf: anyValue('POST and DELETE: the CSRF token of the consent form.'),
    _method: anyValue('POST: "delete" makes it a denial (HTML forms cannot send DELETE).'),
  },
} as const;

const nativeQuery = { type: 'object', properties: { code: anyValue('The authorization code to show.') } } as const;

/**
 * /oauth/authorize (SPEC 3.5, reference 4): the actions of the `authorizations` controller, `new` (GET),
 * `create` (POST), `destroy` (DELETE, or POST with _method=delete) and `show` (the out-of-band code page).
 */
export const authorizeRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps, controllers }) => {
  // STYLE 5: errors here are pages on this server; only the delivery of a verified request ever redirects.
  app.setErrorHandler(endUserErrorHandler);
  const authenticate = authenticateResourceOwner(deps);
  const controller = controllers.authorizations;
  const formPostScript = readFileSync(join(PUBLIC_DIR, 'form-post.js'));

  app.get('/assets/form-post.js', async (_request, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(formPostScript),
  );

  // HEAD is refused: with consent skipped, a GET issues a code. The action signs the user in itself, after
  // validating the request (OpenID Connect prompt=none errors need no page).
  app.get('/oauth/authorize', { schema: { querystring: parametersSchema }, exposeHeadRoute: false }, (request, reply) =>
    controller.new(request, reply),
  );
  refuseHead(app, '/oauth/authorize', ['GET', 'POST', 'DELETE']);

  // The consent form (Authorize, or Deny with _method=delete) needs a session and its CSRF token. With OpenID
  // Connect on, a POST without either field is an authorization request sent as a form (Core 3.1.2.1: an OP
  // takes GET and POST), which is no more than the same request as a link: handled like GET, so these hooks let
  // it through. Without it, such a POST is a consent form without its token, refused as before.
  const byPost = (request: FastifyRequest) => deps.config.openid.enabled && isAuthorizationRequest(request.body);
  async function authenticateConsentForm(request: FastifyRequest, reply: FastifyReply) {
    if (!byPost(request)) await authenticate.call(app, request, reply);
  }
  function requireConsentFormCsrf(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (byPost(request)) return done();
    app.csrfProtection(request, reply, done);
  }
  app.post(
    '/oauth/authorize',
    { schema: { body: parametersSchema }, onRequest: formBodyOnly, preHandler: [authenticateConsentForm, requireConsentFormCsrf] },
    (request, reply) => {
      if (byPost(request)) return controller.new(request, reply);
      return isDeleteOverride(request.body) ? controller.destroy(request, reply) : controller.create(request, reply);
    },
  );

  app.delete('/oauth/authorize', { preHandler: [authenticate, app.csrfProtection] }, (request, reply) =>
    controller.destroy(request, reply),
  );

  app.get(NATIVE_PATH, { schema: { querystring: nativeQuery }, preHandler: authenticate }, (request, reply) =>
    controller.show(request, reply),
  );
};

function isAuthorizationRequest(body: unknown): boolean {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  return fields._csrf === undefined && fields._method === undefined;
}

function isDeleteOverride(body: unknown): boolean {
  const method = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)._method : undefined;
  return typeof method === 'string' && method.toLowerCase() === 'delete';
}
