import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { clientSecretVariable, isPublicClient, type IdentityProviderConfig } from '../../../config/identity-providers-schema.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { configurationFailureOf, upstreamFailureOf } from '../../../oauth/federation/upstream-failure.js';
import { findUpstream } from '../../../oauth/federation/upstream-providers.js';
import { completeUpstreamSignIn, startUpstreamSignIn, type PendingUpstreamSignIn } from '../../../oauth/federation/upstream-sign-in.js';
import { resolveUpstreamUser, upstreamIdentityOf } from '../../../oauth/federation/upstream-user.js';
import { endUserErrorHandler, renderError } from '../../hooks/end-user-pages.js';
import { noStore } from '../../no-store.js';
import type { RouteOptions } from '../../route-options.js';
import { NotFound } from '../../../oauth/errors.js';
import { continueAfterUpstream, keepUpstreamSignIn } from './upstream-continue.js';
import { auditIdentityLinked, auditUpstreamUserCreated } from './upstream-audit.js';
import { upstreamFailurePage } from './upstream-failure-page.js';
import { LINK_PATH, linkBody, showLink, startLink, submitLink } from './upstream-link.js';
import { readUpstreamLogos } from './upstream-logos.js';
import { backchannelLogoutBody, backchannelLogoutBodyRefused, receiveBackchannelLogout } from './upstream-logout-routes.js';
import { refuseHead } from '../../refuse-head.js';

// Sign-in through upstream identity providers (issue 37, config identityProviders; the domain is in
// src/oauth/federation/): /login/upstream/:id starts it (a redirect with fresh state, nonce and PKCE, so a forged
// link can start nothing but a new sign-in), /login/upstream/:id/callback ends it (the redirect URI registered at the
// upstream), /login/upstream/link is the proof of a local account, /login/upstream/:id/logo the button's logo.

declare module '@fastify/secure-session' {
  interface SessionData {
    /** The sign-in sent to an upstream, until its callback: state, nonce, PKCE verifier (the cookie is encrypted). */
    pendingUpstream: PendingUpstreamSignIn;
  }
}

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64, description: 'The identity provider id (config identityProviders).' } },
} as const;

type WithId = { Params: { id: string } };

/** The redirect URI registered at the upstream: `${baseUrl}/login/upstream/${id}/callback`. */
export const upstreamCallbackUrl = (deps: OAuthDeps, entry: IdentityProviderConfig): string =>
  `${deps.config.baseUrl.replace(/\/+$/, '')}/login/upstream/${entry.id}/callback`;

export const federationRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.setErrorHandler(endUserErrorHandler);
  const logos = readUpstreamLogos(deps.config.identityProviders);
  // Legitimate (PKCE keeps its codes), but exactly what a misspelled IDP_<ID>_CLIENT_SECRET looks like: said at boot.
  for (const entry of deps.config.identityProviders.filter(isPublicClient))
    app.log.info(
      { event: 'config.upstream_public_client', provider: entry.id },
      `identity provider ${entry.id} signs in as a public client (PKCE, no client authentication): ${clientSecretVariable(entry.id)}, clientSecretFile and privateKeyJwt are unset`,
    );

  const unknownProvider = (reply: FastifyReply) =>
    renderError(reply, new NotFound(reply.request.pageLanguage.t('upstream.unknownProvider')), {
      href: '/login',
      text: reply.request.pageLanguage.t('error.logIn'),
    });

  // Both GETs change the browser's session (a sign-in begun, then completed): no HEAD.
  const configured = (request: FastifyRequest) =>
    findUpstream(deps.config, (request.params as Partial<WithId['Params']>).id ?? '') !== null;
  refuseHead(app, '/login/upstream/:id', ['GET'], configured);
  refuseHead(app, '/login/upstream/:id/callback', ['GET'], configured);
  app.get<WithId>('/login/upstream/:id', { schema: { params: idParams }, exposeHeadRoute: false }, async (request, reply) => {
    const entry = findUpstream(deps.config, request.params.id);
    if (entry === null) return unknownProvider(reply);
    try {
      // Set by the authorization request that sent the browser to /login: its max_age (prompt=login: 0); an id_token_hint
      // for someone else asks for a sign-in as another account (reauthenticate), which the upstream may need too.
      const maxAge = request.session.get('maxAuthenticationAge') ?? (request.session.get('reauthenticate') === true ? 0 : null);
      const signInRequest = { loginHint: request.session.get('loginHint') ?? null, maxAge };
      const { url, pending } = await startUpstreamSignIn(deps, entry, upstreamCallbackUrl(deps, entry), signInRequest);
      request.session.set('pendingUpstream', pending);
      return noStore(reply, { pragma: false }).redirect(url, 303);
    } catch (error) {
      return upstreamFailurePage(deps, request, reply, entry, configurationFailureOf(error));
    }
  });

  app.get<WithId>('/login/upstream/:id/callback', { schema: { params: idParams }, exposeHeadRoute: false }, async (request, reply) => {
    const entry = findUpstream(deps.config, request.params.id);
    if (entry === null) return unknownProvider(reply);
    const pending = request.session.get('pendingUpstream');
    // Used once, good or bad: a callback replayed in this browser finds nothing to complete.
    request.session.set('pendingUpstream', undefined);
    try {
      const callback = new URL(upstreamCallbackUrl(deps, entry));
      callback.search = new URL(request.url, 'http://localhost').search;
      const signedIn = await completeUpstreamSignIn(deps, entry, callback, pending);
      const found = await resolveUpstreamUser(deps, entry, signedIn);
      if (found.outcome === 'signed_in' && found.created) await auditUpstreamUserCreated(deps, request, found.user, entry.id);
      if (found.outcome === 'signed_in' && found.linked)
        await auditIdentityLinked(deps, request, found.user, upstreamIdentityOf(entry, signedIn), found.linked);
      keepUpstreamSignIn(deps, request, entry.id, signedIn, found.outcome === 'prove' ? found.userId : found.user.id);
      if (found.outcome === 'prove') return startLink(deps, request, reply, upstreamIdentityOf(entry, signedIn), found.userIds);
      return await continueAfterUpstream(deps, request, reply, found.user);
    } catch (error) {
      return upstreamFailurePage(deps, request, reply, entry, upstreamFailureOf(error));
    }
  });

  app.get<WithId>('/login/upstream/:id/logo', { schema: { params: idParams } }, async (request, reply) => {
    const logo = logos.get(request.params.id);
    if (logo === undefined) return unknownProvider(reply);
    reply.header('content-type', logo.contentType).header('cache-control', 'public, max-age=3600');
    // An SVG is a document that can run script: served as one, it gets no rights at all.
    if (logo.contentType === 'image/svg+xml')
      reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    return reply.send(logo.body);
  });

  // No CSRF token: the upstream posts it server to server, and the signed logout token is its own proof.
  app.post<WithId & { Body: { logout_token: string } }>(
    '/login/upstream/:id/backchannel-logout',
    { schema: { params: idParams, body: backchannelLogoutBody }, errorHandler: backchannelLogoutBodyRefused },
    async (request, reply) => receiveBackchannelLogout(deps, request, reply),
  );

  app.get(LINK_PATH, async (request: FastifyRequest, reply) => showLink(deps, request, reply));
  app.post<{ Body: { password?: string; action?: string } }>(
    LINK_PATH,
    { schema: { body: linkBody }, preHandler: app.csrfProtection },
    async (request, reply) => submitLink(deps, request, reply),
  );
};
