import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { authenticationShortfall, requirementResolver } from './authentication-requirement.js';
import type { CheckedRequirement } from './authentication-requirement-shapes.js';
import { extractCredentials } from './bearer-token.js';
import { headerSafe } from './challenge.js';
import { DpopNonces } from './dpop-nonce.js';
import { verifyDpopProof, type DpopVerifier } from './dpop-proof.js';
import { DpopReplayCache } from './dpop-replay-cache.js';
import { dpopSettings, type DpopSettings } from './dpop-settings.js';
import { GuardError, GuardMisconfiguredError, GuardUnavailableError } from './guard-error.js';
import { guardLogger, misconfigurationReport } from './misconfiguration-report.js';
import { misconfigured, refuse, unavailable, type RefusalSettings } from './refusals.js';
import { checkGuardOptions } from './option-checks.js';
import { transportWarning } from './remote-settings.js';
import { resourceSettings, type ResourceSettings } from './resource-metadata.js';
import { evaluateRequestToken, holdsAnyScope, requiredScopes, type DpopCheck, type TokenEvaluation } from './token-evaluation.js';
import { tokenSource } from './token-source.js';
import type { GuardToken, ServiceGuardOptions } from './types.js';

/** A preHandler made by `app.serviceAuthorize(...)`. */
export type ServiceAuthorizeHook = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The valid access token of this request, or null. Looked up once per request. */
    serviceToken(): Promise<GuardToken | null>;
    /** True when the token is valid and satisfies every serviceAuthorize preHandler that ran for this request. */
    validServiceToken(): Promise<boolean>;
    /** The resource owner of the valid token, through `resolveResourceOwner`; null without either. Once per request. */
    currentResourceOwner<T = unknown>(): Promise<T | null>;
  }
  interface FastifyInstance {
    /**
     * A preHandler requiring a valid token holding at least one of `scopes` (OR); list several preHandlers to
     * require several scopes (AND); no scopes = any valid token. 401 invalid_token, 403 insufficient_scope.
     */
    serviceAuthorize(...scopes: string[]): ServiceAuthorizeHook;
  }
}

interface RequestState {
  evaluation?: Promise<TokenEvaluation>;
  owner?: Promise<unknown>;
  /** The scope lists of the serviceAuthorize preHandlers that ran, for validServiceToken. */
  requirements: Array<readonly string[]>;
  /** The sign-in those preHandlers required (RFC 9470), for validServiceToken; null for none. */
  authentication?: CheckedRequirement | null;
}

const guardPlugin: FastifyPluginAsync<ServiceGuardOptions> = async (app, options) => {
  checkGuardOptions(options);
  const now = options.now ?? Date.now;
  const reportMisconfiguration = misconfigurationReport(app.log, guardLogger(options.logger), now);
  const dpop = dpopSettings(options.dpop);
  const resource = resourceSettings(options, dpop);
  const { source, rules } = tokenSource(options, resource, now, app.log);
  if ((options.mode === 'remote' || options.mode === 'jwt') && options.introspectionUrl !== undefined) {
    const warning = transportWarning(options.introspectionUrl);
    if (warning) app.log.warn(warning);
  }
  if (resource) serveResourceMetadata(app, resource);
  const requirementOf = requirementResolver(app, options.requireAuthentication);
  const resolver = options.resolveResourceOwner;
  const exposeToViews = options.exposeResourceOwnerToViews ?? true;
  const refusal: RefusalSettings = {
    realm: headerSafe(options.realm ?? 'oauth-service'),
    ...(resource && { resourceMetadataUrl: resource.metadataUrl }),
    unauthorized: options.serviceUnauthorizedRenderOptions,
    forbidden: options.serviceForbiddenRenderOptions,
  };
  const verifier: DpopVerifier | null = dpop && {
    settings: dpop,
    replays: new DpopReplayCache(dpop.replayCacheMaxEntries, now),
    nonces: dpop.nonce && new DpopNonces(dpop.nonce.secret, dpop.nonce.rotateSeconds, now),
    now,
  };
  if (dpop && verifier) {
    const nonces = dpop.nonce?.required ? verifier.nonces : null;
    refusal.dpop = {
      algorithms: dpop.algorithms,
      bearer: !dpop.required,
      announce: options.dpop?.announce ?? true,
      ...(nonces && { nonce: () => nonces.current() }),
    };
  }

  function dpopCheck(request: FastifyRequest): DpopCheck | null {
    if (!dpop || !verifier) return null;
    return {
      required: dpop.required,
      verify: (accessToken) =>
        verifyDpopProof(request.headers.dpop, { method: request.method, url: requestUrl(request, dpop), accessToken }, verifier),
    };
  }
  // Per-request memos live here rather than on request properties, so nothing leaks between plugin instances.
  const states = new WeakMap<FastifyRequest, RequestState>();

  function stateOf(request: FastifyRequest): RequestState {
    let state = states.get(request);
    if (!state) states.set(request, (state = { requirements: [] }));
    return state;
  }

  // Seed: the token is evaluated once per request, however many helpers and preHandlers ask.
  function evaluate(request: FastifyRequest): Promise<TokenEvaluation> {
    const state = stateOf(request);
    state.evaluation ??= evaluateRequestToken(
      request.headers.authorization,
      (token) => source(token, request),
      now,
      rules,
      dpopCheck(request),
    );
    return state.evaluation;
  }

  app.decorateRequest('serviceToken', async function serviceToken(this: FastifyRequest) {
    return (await evaluate(this)).token;
  });

  app.decorateRequest('validServiceToken', async function validServiceToken(this: FastifyRequest) {
    const { token } = await evaluate(this);
    const { requirements, authentication } = stateOf(this);
    return (
      token !== null &&
      requirements.every((scopes) => holdsAnyScope(token, scopes)) &&
      (!authentication || authenticationShortfall(token, authentication, now()) === null)
    );
  });

  app.decorateRequest('currentResourceOwner', function currentResourceOwner(this: FastifyRequest) {
    const state = stateOf(this);
    state.owner ??= evaluate(this).then(async ({ token }) => (token && resolver ? ((await resolver(token, this)) ?? null) : null));
    return state.owner as Promise<never>;
  });

  app.decorate('serviceAuthorize', function serviceAuthorize(...scopes: string[]): ServiceAuthorizeHook {
    const required = requiredScopes(scopes);
    return async function requireServiceToken(request, reply) {
      const state = stateOf(request);
      state.requirements.push(required);
      const authentication = (state.authentication = requirementOf(request));
      let evaluation: TokenEvaluation;
      try {
        evaluation = await evaluate(request);
      } catch (error) {
        if (error instanceof GuardUnavailableError) return unavailable(request, reply, error);
        if (error instanceof GuardMisconfiguredError) {
          reportMisconfiguration(request, error);
          return misconfigured(reply, error);
        }
        throw error;
      }
      const scheme = dpop ? schemeOf(request) : null;
      if (evaluation.token === null) return refuse(request, reply, refusalError(evaluation), refusal, required, scheme);
      if (!holdsAnyScope(evaluation.token, required))
        return refuse(request, reply, GuardError.insufficientScope(required), refusal, required, scheme);
      // RFC 9470 section 3: the scopes are there, the sign-in is not enough; the client asks the user to sign in again.
      const shortfall = authentication && authenticationShortfall(evaluation.token, authentication, now());
      if (shortfall) {
        const error = GuardError.insufficientUserAuthentication(shortfall, authentication);
        return refuse(request, reply, error, refusal, required, scheme);
      }
      // RFC 9449 section 9: a proof with the previous period's nonce passed; hand out the current one.
      if (evaluation.staleNonce && verifier?.nonces) reply.header('dpop-nonce', verifier.nonces.current());
      // Seed: current_resource_owner is usable in views; @fastify/view merges reply.locals into every template.
      const locals = (reply as { locals?: unknown }).locals;
      if (exposeToViews && resolver && locals !== null && typeof locals === 'object') {
        (locals as Record<string, unknown>).currentResourceOwner = await request.currentResourceOwner();
      }
      return undefined;
    };
  });
};

function refusalError(evaluation: Extract<TokenEvaluation, { token: null }>): GuardError {
  if (evaluation.problem === 'dpop_proof' || evaluation.problem === 'dpop_nonce') {
    return GuardError.invalidDpopProof(evaluation.detail ?? 'The DPoP proof is invalid', evaluation.problem);
  }
  return GuardError.invalidToken(evaluation.problem);
}

function schemeOf(request: FastifyRequest): 'bearer' | 'dpop' | null {
  const credentials = extractCredentials(request.headers.authorization, true);
  if (credentials.kind === 'none') return null;
  return credentials.kind === 'malformed' ? credentials.scheme : credentials.kind;
}

/**
 * The URL a DPoP proof's htu must name (RFC 9449 section 4.3 step 9): `dpop.publicUrl` followed by the request's
 * path, or else the request's own protocol and host (which follow X-Forwarded-Proto and X-Forwarded-Host only with
 * Fastify's `trustProxy`). The query is dropped by the comparison.
 */
function requestUrl(request: FastifyRequest, dpop: DpopSettings): string {
  const path = request.url.split('?', 1)[0] ?? '/';
  return `${dpop.publicUrl ?? `${request.protocol}://${request.host}`}${path.startsWith('/') ? path : `/${path}`}`;
}

/**
 * RFC 9728 section 3: GET of the metadata URL answers 200 application/json with the document. The path-suffixed
 * URL of section 3.1 is the one challenges name; the bare well-known path is served too (unless something already
 * serves it, e.g. a second guard on the same host) for clients that look at the origin's root.
 */
function serveResourceMetadata(app: FastifyInstance, resource: ResourceSettings): void {
  for (const url of resource.metadataPaths) {
    if (url !== resource.metadataPaths[0] && app.hasRoute({ method: 'GET', url })) continue;
    app.get(url, async function protectedResourceMetadata(_request, reply) {
      // Public and static: cacheable like the service's own metadata, and readable by browser-based clients
      // (MCP inspectors) on other origins.
      return reply
        .header('cache-control', 'public, max-age=3600')
        .header('access-control-allow-origin', '*')
        .type('application/json; charset=utf-8')
        .send(resource.document);
    });
    app.options(url, answerPreflight);
  }
}

// A list of header names (RFC 9110 field-name tokens), as a preflight's Access-Control-Request-Headers carries it.
const HEADER_NAMES = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * The document's CORS preflight: from every origin, with whatever headers the client adds (the MCP SDK sends
 * MCP-Protocol-Version), as the service answers for its own metadata; without it a browser client's preflight fails.
 * A copy of the service's publicDocumentPreflight (the guard imports nothing of the service's); test/unit/guard-sync
 * holds the two equal.
 */
async function answerPreflight(request: FastifyRequest, reply: FastifyReply) {
  const requested = request.headers['access-control-request-headers'];
  reply.header('access-control-allow-origin', '*').header('access-control-allow-methods', 'GET, HEAD');
  if (typeof requested === 'string' && HEADER_NAMES.test(requested.trim())) reply.header('access-control-allow-headers', requested.trim());
  return reply.header('access-control-max-age', '600').header('allow', 'GET, HEAD, OPTIONS').code(204).send();
}

/**
 * The guard: protects a Fastify app's routes with bearer access tokens (RFC 6750). Register it once per
 * context; it decorates requests with `serviceToken()`, `validServiceToken()`, `currentResourceOwner()` and the
 * instance with `serviceAuthorize(...scopes)`.
 *
 * - local mode (`introspect`): inside the authorization server, tokens are read from its store.
 * - remote mode (`mode: 'remote'`): asks `POST /oauth/introspect` with the API's client credentials and caches
 *   answers. A revoked token stops being accepted within `cacheTtlSeconds` (default 30); an expired one at once.
 *   When the authorization server cannot answer, protected routes respond 503, never 200; when it refuses the API's
 *   own credentials, 500 server_error, reported to the operator once a minute (the app's logger, else `logger`).
 * - jwt mode (`mode: 'jwt'`): verifies JWT access tokens (RFC 9068) with the issuer's published keys, without a
 *   call per request. A revoked JWT stays usable until its `exp`, except on the routes listed in `introspect`.
 *
 * With `resource` set, the guard serves the API's Protected Resource Metadata (RFC 9728), names it in every
 * challenge, and refuses tokens meant for another resource.
 *
 * @example
 * await app.register(serviceGuard, { mode: 'remote', introspectionUrl, clientId, clientSecret });
 * app.get('/notes', { preHandler: app.serviceAuthorize('read', 'write') }, handler);
 */
export const serviceGuard = fp(guardPlugin, { name: 'oauth-service-guard', fastify: '5.x' });
