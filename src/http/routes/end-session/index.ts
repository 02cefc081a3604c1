import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { checkEndSession, type EndSession, type EndSessionParameters } from '../../../oauth/openid/end-session.js';
import { hintNames } from '../../../oauth/openid/id-token-hint.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { endLoginSession } from '../../end-login-session.js';
import { sessionUser, type SignedInUser } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler, renderPage } from '../../hooks/end-user-pages.js';
import { formBodyOnly } from '../../hooks/form-body-only.js';
import type { RouteOptions } from '../../route-options.js';
import { refuseHead } from '../../refuse-head.js';

const text = (description: string) => ({ type: 'string', maxLength: 8192, description }) as const;
const parametersSchema = {
  type: 'object',
  properties: {
    id_token_hint: text('An ID token this server issued to the relying party: whose session ends.'),
    post_logout_redirect_uri: text('Where to go afterwards; must be registered for the client exactly.'),
    state: text('Returned to the post_logout_redirect_uri.'),
    client_id: text('The client, when no id_token_hint names it.'),
    logout_hint: text('Accepted; has no effect.'),
    ui_locales: text('OpenID Connect Core 3.1.2.1: the languages of the confirmation page, most preferred first.'),
    _csrf: text('The confirmation form: its CSRF token.'),
  },
} as const;

/**
 * end_session_endpoint (RP-Initiated Logout 1.0): GET and POST from the relying party; a valid id_token_hint
 * for the signed-in user (or no session at all) logs out at once, anything else asks the user first
 * (POST /oauth/end_session/confirm, CSRF-protected). Errors are pages on this server, never redirects.
 */
export const endSessionRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.setErrorHandler(endUserErrorHandler);
  const signOut = signingOut(deps);

  const handle = async (request: FastifyRequest, reply: FastifyReply, parameters: EndSessionParameters, user: SignedInUser | null) => {
    const endSession = await checkEndSession(deps, parameters);
    if (user === null || (endSession.hint !== null && (await hintNames(deps, endSession.hint, user)))) {
      return signOut(request, reply, endSession);
    }
    return renderPage(request, reply, 'end-session.eta', {
      title: request.pageLanguage.t('endSession.title'),
      username: user.username,
      applicationName: endSession.application?.name ?? null,
      fields: Object.entries(parameters).filter(([name, value]) => name !== '_csrf' && typeof value === 'string' && value !== ''),
      csrfToken: reply.generateCsrf(),
    });
  };

  // A GET with a valid id_token_hint signs out at once.
  app.get<{ Querystring: EndSessionParameters }>(
    '/oauth/end_session',
    { schema: { querystring: parametersSchema }, exposeHeadRoute: false },
    async (request, reply) => handle(request, reply, request.query, await sessionUser(deps, request)),
  );
  refuseHead(app, '/oauth/end_session', ['GET', 'POST']);
  app.post<{ Body: EndSessionParameters }>(
    '/oauth/end_session',
    { schema: { body: parametersSchema }, onRequest: formBodyOnly },
    async (request, reply) => {
      const parameters = request.body ?? {};
      // A form posted from the relying party's site arrives without the SameSite=Lax session cookie, so no session is
      // seen, though the browser has one: the same request as a GET (a top-level navigation, which carries it) finds it.
      const user = await sessionUser(deps, request);
      if (user === null) return reply.redirect(endSessionUrl(parameters), 303);
      return handle(request, reply, parameters, user);
    },
  );
  app.post<{ Body: EndSessionParameters }>(
    '/oauth/end_session/confirm',
    { schema: { body: parametersSchema }, onRequest: formBodyOnly, preHandler: app.csrfProtection },
    async (request, reply) => signOut(request, reply, await checkEndSession(deps, request.body ?? {})),
  );
};

const endSessionUrl = (parameters: EndSessionParameters): string => {
  const fields = Object.entries(parameters).filter(([name, value]) => name !== '_csrf' && typeof value === 'string');
  return fields.length === 0 ? '/oauth/end_session' : `/oauth/end_session?${new URLSearchParams(fields).toString()}`;
};

// The session ends before the answer; the clients it signed in to are told afterwards (Back-Channel Logout 1.0).
// Without a redirect URI the sign-in page follows, in the language end_session asked for (ui_locales), with the
// notice in that language too, and only when a session did end.
const signingOut = (deps: OAuthDeps) => async (request: FastifyRequest, reply: FastifyReply, endSession: EndSession) => {
  const wasSignedIn = await endLoginSession(deps, request);
  request.log.info({ event: 'session.ended', clientId: endSession.application?.uid ?? null, wasSignedIn }, 'signed out (end_session)');
  if (endSession.redirectTo !== null) return reply.redirect(endSession.redirectTo, 303);
  const { t, uiLocales } = request.pageLanguage;
  if (wasSignedIn) request.session.set('notice', t('logout.done'));
  return reply.redirect(uiLocales === null ? '/login' : `/login?${new URLSearchParams({ ui_locales: uiLocales }).toString()}`, 303);
};
