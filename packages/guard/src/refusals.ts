import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerChallenge, dpopChallenge, plainBearerChallenge, type ResourceChallenge } from './challenge.js';
import type { GuardError, GuardMisconfiguredError, GuardUnavailableError } from './guard-error.js';
import type { GuardForbiddenRenderOptions, GuardRenderOptions, RenderOptionsHook } from './types.js';

export interface RefusalSettings {
  realm: string;
  /** RFC 9728 section 5.1: the protected resource metadata URL every challenge names, when a resource is set. */
  resourceMetadataUrl?: string;
  unauthorized?: RenderOptionsHook<GuardRenderOptions>;
  forbidden?: RenderOptionsHook<GuardForbiddenRenderOptions>;
  /** With DPoP on (RFC 9449 section 7.1): a DPoP challenge on every refusal, next to the Bearer one unless DPoP is required. */
  dpop?: {
    algorithms: readonly string[];
    /** Whether unbound Bearer tokens are accepted too (then both challenges are sent). */
    bearer: boolean;
    /** false: a refusal that does not concern DPoP carries the Bearer challenge alone. */
    announce: boolean;
    /** With required nonces: the current nonce, sent as DPoP-Nonce with every 401 (section 9). */
    nonce?: () => string;
  };
}

const DPOP_PROBLEMS = new Set(['dpop_bound', 'dpop_unbound', 'dpop_required', 'dpop_proof', 'dpop_nonce']);

/**
 * Sends the 401 or 403 of RFC 6750 section 3.1 with its challenge, the JSON error body (SPEC 8) unless a
 * render-options hook supplies another, and no-store: a refusal must not be replayed from a cache.
 */
export async function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  error: GuardError,
  settings: RefusalSettings,
  routeScopes: readonly string[] = [],
  scheme: 'bearer' | 'dpop' | null = null,
): Promise<FastifyReply> {
  const hook = error.status === 401 ? settings.unauthorized : settings.forbidden;
  const custom: GuardForbiddenRenderOptions | null | undefined = hook ? await hook({ error, request }) : null;
  request.log.info({ guard: error.code, reason: error.reason ?? undefined }, error.description);
  reply.header('cache-control', 'no-store');
  // Reference 12.2, P9: respond_not_found_when_forbidden hides the resource, so the 404 carries no challenge
  // (which would reveal it) and no body unless the hook gives one. It has no effect on a 401.
  if (error.status === 403 && custom?.respondNotFoundWhenForbidden) {
    reply.code(404);
    return custom.body === undefined ? reply.send() : sendBody(reply, custom);
  }
  const resource: ResourceChallenge | undefined =
    settings.resourceMetadataUrl === undefined ? undefined : { metadataUrl: settings.resourceMetadataUrl, scopes: routeScopes };
  reply.code(error.status).header('www-authenticate', challenges(settings, error, resource, scheme));
  if (settings.dpop?.nonce && error.status === 401) reply.header('dpop-nonce', settings.dpop.nonce());
  return custom?.body === undefined ? reply.send(error.toJSON()) : sendBody(reply, custom);
}

/**
 * The WWW-Authenticate value. Without DPoP, the Bearer challenge. With DPoP (RFC 9449 sections 7.1 and 7.2), the
 * Bearer challenge (unless DPoP is required) and the DPoP one, comma-separated in one header (RFC 9110 section
 * 11.6.1); the error goes on the challenge of the scheme it concerns: DPoP for a request with the DPoP scheme and for
 * the DPoP refusals (a bound token sent as Bearer among them), Bearer otherwise; none for a request without a token.
 */
function challenges(
  settings: RefusalSettings,
  error: GuardError,
  resource: ResourceChallenge | undefined,
  scheme: 'bearer' | 'dpop' | null,
): string {
  if (!settings.dpop) return bearerChallenge(settings.realm, error, resource);
  const onDpop = error.reason !== 'missing' && (scheme === 'dpop' || DPOP_PROBLEMS.has(error.reason ?? '') || !settings.dpop.bearer);
  if (!onDpop && !settings.dpop.announce && settings.dpop.bearer) return bearerChallenge(settings.realm, error, resource);
  const dpop = dpopChallenge(settings.realm, onDpop ? error : null, settings.dpop.algorithms, resource);
  if (!settings.dpop.bearer) return dpop;
  const bearer = onDpop ? plainBearerChallenge(settings.realm, resource) : bearerChallenge(settings.realm, error, resource);
  return `${bearer}, ${dpop}`;
}

/** 503 temporarily_unavailable: the token could not be checked, so the request is refused, never let through. */
export function unavailable(request: FastifyRequest, reply: FastifyReply, error: GuardUnavailableError): FastifyReply {
  request.log.error({ err: error }, 'access token could not be verified');
  return reply.code(503).header('cache-control', 'no-store').send(error.toJSON());
}

/**
 * 500 server_error: the authorization server refused the API's own credentials. No challenge: RFC 6750's challenges
 * (section 3.1) blame the caller's token, nothing about it is wrong here, and a client that fetched a new token would
 * be refused again. The operator is told by misconfiguration-report.ts.
 */
export function misconfigured(reply: FastifyReply, error: GuardMisconfiguredError): FastifyReply {
  return reply.code(500).header('cache-control', 'no-store').send(error.toJSON());
}

function sendBody(reply: FastifyReply, { body, contentType }: GuardRenderOptions): FastifyReply {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    return reply.type(contentType ?? 'text/plain; charset=utf-8').send(body);
  }
  return reply.type(contentType ?? 'application/json; charset=utf-8').send(JSON.stringify(body));
}
