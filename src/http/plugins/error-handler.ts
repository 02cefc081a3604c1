import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequest, OAuthError, ServerError, TemporarilyUnavailable } from '../../oauth/errors.js';

export interface ErrorHandlerOptions {
  /** True for failures that mean the database is unreachable: 503 instead of 500. */
  isUnavailable: (error: unknown) => boolean;
}

/**
 * The one place OAuth errors become JSON (STYLE 4). Expected OAuth errors are logged at info without a
 * stack; anything else is a server_error whose detail is logged, never shown.
 */
export const errorHandlerPlugin = fp<ErrorHandlerOptions>(
  async (app, { isUnavailable }) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      sendError(toOAuthError(error, request, isUnavailable), request, reply);
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

export function sendError(error: OAuthError, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error instanceof ServerError ? 500 : error instanceof TemporarilyUnavailable ? 503 : error.status;
  if (status === 503) reply.header('retry-after', '5');
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
