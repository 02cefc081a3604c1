import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound, ServerError, TemporarilyUnavailable, type OAuthError } from '../../oauth/errors.js';
import { applyErrorResponse, errorResponse, logRefusal, requestError } from '../error-response.js';
import { renderError } from '../hooks/end-user-pages.js';
import { noStore } from '../no-store.js';
import { rankedRanges } from '../ranked-ranges.js';

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
      const error = new NotFound(`No route for ${request.method} ${request.url.split('?')[0]}.`);
      // SPEC 3.6: a browser that opens a wrong address gets a page (title, lang) in its language, as the other errors
      // of the end users' pages; API clients keep the JSON body. Only where pages are served (not the metrics listener).
      if (prefersPage(request.headers.accept) && servesPages(request)) return renderError(reply, error);
      const response = errorResponse(error, realm);
      return applyErrorResponse(reply, response).send(response.body);
    });
  },
  { name: 'error-handler' },
);

/**
 * RFC 9110 section 12.5.1: the request names text/html and ranks it above application/json (a higher q, or the same
 * q and listed first), as a browser's navigation does. No Accept, a wildcard or application/json alone: JSON.
 */
function prefersPage(accept: string | undefined): boolean {
  const ranked = rankedRanges(accept ?? '').map((range) => range.toLowerCase());
  const html = ranked.indexOf('text/html');
  const json = ranked.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

const servesPages = (request: FastifyRequest): boolean =>
  request.server.hasReplyDecorator('view') && request.server.hasRequestDecorator('pageLanguage');

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
