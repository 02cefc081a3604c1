import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerChallenge } from './challenge.js';
import type { GuardError, GuardUnavailableError } from './guard-error.js';
import type { GuardForbiddenRenderOptions, GuardRenderOptions, RenderOptionsHook } from './types.js';

export interface RefusalSettings {
  realm: string;
  /** RFC 9728 section 5.1: the protected resource metadata URL every challenge names, when a resource is set. */
  resourceMetadataUrl?: string;
  unauthorized?: RenderOptionsHook<GuardRenderOptions>;
  forbidden?: RenderOptionsHook<GuardForbiddenRenderOptions>;
}

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
  reply
    .code(error.status)
    .header(
      'www-authenticate',
      bearerChallenge(
        settings.realm,
        error,
        settings.resourceMetadataUrl === undefined ? undefined : { metadataUrl: settings.resourceMetadataUrl, scopes: routeScopes },
      ),
    );
  return custom?.body === undefined ? reply.send(error.toJSON()) : sendBody(reply, custom);
}

/** 503 temporarily_unavailable: the token could not be checked, so the request is refused, never let through. */
export function unavailable(request: FastifyRequest, reply: FastifyReply, error: GuardUnavailableError): FastifyReply {
  request.log.error({ err: error }, 'access token could not be verified');
  return reply.code(503).header('cache-control', 'no-store').send(error.toJSON());
}

function sendBody(reply: FastifyReply, { body, contentType }: GuardRenderOptions): FastifyReply {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    return reply.type(contentType ?? 'text/plain; charset=utf-8').send(body);
  }
  return reply.type(contentType ?? 'application/json; charset=utf-8').send(JSON.stringify(body));
}
