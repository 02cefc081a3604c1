import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound, ServerError, TemporarilyUnavailable, type OAuthError } from '../../oauth/errors.js';
import { applyErrorResponse, errorResponse, logRefusal, requestError } from '../error-response.js';
import { noStore } from '../no-store.js';

export interface ErrorHandlerOptions {
  /** True for failures that mean the database is unreachable: 503 instead of 500. */
  isUnavailable: (error: unknown) => boolean;
  /** Realm of WWW-Authenticate challenges. */
  realm: string;
}

/**
 * The app-wide handler: every error becomes JSON through errorResponse (STYLE 4). Expected errors are logged at
 * info without a stack; anything else is a server_error (or temporarily_unavailable while the database is
 * unreachable) whose detail is logged, never shown.
 */
export const errorHandlerPlugin = fp<ErrorHandlerOptions>(
  async (app, { isUnavailable, realm }) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      sendError(toOAuthError(error, request, isUnavailable), reply, realm);
    });
    app.setNotFoundHandler((request, reply) => {
      const response = errorResponse(new NotFound(`No route for ${request.method} ${request.url.split('?')[0]}.`), realm);
      applyErrorResponse(reply, response).send(response.body);
    });
  },
  { name: 'error-handler' },
);

export function toOAuthError(
  error: FastifyError | OAuthError,
  request: FastifyRequest,
  isUnavailable: (e: unknown) => boolean,
): OAuthError {
  const refusal = requestError(error);
  if (refusal !== null) {
    logRefusal(request, error, refusal);
    return refusal;
  }
  if (isUnavailable(error)) {
    request.log.error({ err: error }, 'database unavailable');
    return new TemporarilyUnavailable();
  }
  request.log.error({ err: error }, 'unexpected error');
  return new ServerError();
}

/** RFC 6749 section 5.1 and 5.2: JSON, and no-store with Pragma: no-cache, as for every token response. */
export function sendError(error: OAuthError, reply: FastifyReply, realm: string): FastifyReply {
  const response = errorResponse(error, realm);
  return applyErrorResponse(noStore(reply), response).send(response.body);
}
