import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  InsufficientScope,
  InvalidClient,
  InvalidRequest,
  InvalidToken,
  OAuthError,
  ServerError,
  TemporarilyUnavailable,
  wwwAuthenticateValue,
} from '../../oauth/errors.js';

export interface ErrorHandlerOptions {
  /** True for failures that mean the database is unreachable: 503 instead of 500. */
  isUnavailable: (error: unknown) => boolean;
  /** Realm of WWW-Authenticate challenges. */
  realm: string;
}

/**
 * The one place OAuth errors become JSON (STYLE 4). Expected OAuth errors are logged at info without a
 * stack; anything else is a server_error whose detail is logged, never shown.
 */
export const errorHandlerPlugin = fp<ErrorHandlerOptions>(
  async (app, { isUnavailable, realm }) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      sendError(toOAuthError(error, request, isUnavailable), reply, realm);
    });
    app.setNotFoundHandler((request, reply) => {
      reply.code(404).header('cache-control', 'no-store').send({ error: 'not_found', error_description: `No route for ${request.method} ${request.url.split('?')[0]}.` });
    });
  },
  { name: 'error-handler' },
);

export function toOAuthError(error: unknown, request: FastifyRequest, isUnavailable: (e: unknown) => boolean): OAuthError {
  if (error instanceof OAuthError) {
    request.log.info({ oauthError: error.code }, error.description);
    return error;
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    request.log.info({ validation: fastifyError.message }, 'request validation failed');
    return new InvalidRequest();
  }
  const status = fastifyError.statusCode;
  if (status === 413) return new PayloadTooLarge();
  if (status === 415) return new UnsupportedMediaType();
  if (status !== undefined && status >= 400 && status < 500) {
    request.log.info({ err: error }, 'malformed request');
    return new InvalidRequest();
  }
  if (isUnavailable(error)) {
    request.log.error({ err: error }, 'database unavailable');
    return new TemporarilyUnavailable();
  }
  request.log.error({ err: error }, 'unexpected error');
  return new ServerError();
}

export function sendError(error: OAuthError, reply: FastifyReply, realm: string): FastifyReply {
  const status = error instanceof ServerError ? 500 : error instanceof TemporarilyUnavailable ? 503 : error.status;
  if (status === 503) reply.header('retry-after', '5');
  const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  const challenge = challengeFor(error, realm);
  // A route may have set its own challenge already (RFC 6750 section 3.1: none without an error code).
  if (challenge && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', challenge);
  return reply.code(status).header('cache-control', 'no-store').header('pragma', 'no-cache').send(error.toJSON());
}

class PayloadTooLarge extends InvalidRequest {
  override readonly status = 413;
  constructor() {
    super('The request body is too large.');
  }
}

class UnsupportedMediaType extends InvalidRequest {
  override readonly status = 415;
  constructor() {
    super('The request body must be application/x-www-form-urlencoded.');
  }
}

/** RFC 6749 section 5.2: a Basic challenge after a failed Basic attempt; RFC 6750 section 3 for bearer errors. */
function challengeFor(error: OAuthError, realm: string): string | null {
  if (error instanceof InvalidClient && error.triedBasic) return `Basic realm="${realm}"`;
  if (error instanceof InvalidToken || error instanceof InsufficientScope) return wwwAuthenticateValue(realm, error);
  return null;
}
