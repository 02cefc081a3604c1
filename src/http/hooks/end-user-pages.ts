import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequest, OAuthError } from '../../oauth/errors.js';

// Rendering the end users' pages (login, consent, authorized applications) and their errors as HTML.

export interface PageLink {
  href: string;
  text: string;
}

/**
 * Renders a page with the one-time notice taken from the session. Pages carry CSRF tokens and sometimes
 * codes, so no cache may keep them.
 */
export function renderPage(request: FastifyRequest, reply: FastifyReply, template: string, model: Record<string, unknown>): FastifyReply {
  const notice = request.session.get('notice');
  if (notice !== undefined) request.session.set('notice', undefined);
  return reply.header('cache-control', 'no-store').view(template, { ...model, notice });
}

/** Reference 15.3: "An error has occurred" and the description. */
export function renderErrorPage(reply: FastifyReply, status: number, description: string, link?: PageLink): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .view('authorization-error.eta', { title: 'An error has occurred', description, link });
}

const CSRF_ERRORS = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

/**
 * The error handler of the end users' route groups (STYLE 5): an error here is always a page on this server,
 * never a redirect. Expected errors are logged at info; 5xx go on to the app-wide handler, which logs them and
 * knows a database outage (503) from a bug (500).
 */
export function endUserErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof OAuthError) {
    request.log.info({ oauthError: error.code }, error.description);
    return renderErrorPage(reply, error.status, error.description);
  }
  if (CSRF_ERRORS.has(error.code)) {
    request.log.info({ csrf: error.code }, 'form refused: missing or invalid CSRF token');
    return renderErrorPage(reply, 403, 'This form has expired or was not sent from this site. Go back, reload the page and try again.');
  }
  const status = error.validation ? 400 : error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    request.log.info({ err: error }, 'malformed request');
    const description = status === 413 ? 'The request body is too large.' : new InvalidRequest().description;
    return renderErrorPage(reply, status, description);
  }
  throw error;
}
