import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AdminRefused } from '../../hooks/authenticate-admin.js';

// How the admin group answers: the same routes serve HTML pages to browsers and JSON to scripts that send
// Accept: application/json or a JSON body (SPEC 3.6).

export function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\bapplication\/json\b/i.test(accept) || mediaType(request) === 'application/json';
}

export function mediaType(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** An admin page inside the layout, with the one-time notice and a CSRF token for its forms. */
export function renderAdminPage(request: FastifyRequest, reply: FastifyReply, template: string, model: object): FastifyReply {
  const notice = request.session.get('notice');
  if (notice !== undefined) request.session.set('notice', undefined);
  return reply.view(`applications/${template}`, { ...model, notice, csrfToken: reply.generateCsrf() });
}

const ERROR_CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'invalid_request',
  415: 'invalid_request',
  429: 'too_many_requests',
};

/** An error as a small page or as `{"error", "error_description"}` (the service's one JSON error shape). */
export function sendAdminError(request: FastifyRequest, reply: FastifyReply, status: number, message: string): FastifyReply {
  reply.code(status);
  if (wantsJson(request)) return reply.send({ error: ERROR_CODES[status] ?? 'invalid_request', error_description: message });
  return reply.view('applications/error.eta', { title: HEADINGS[status] ?? 'An error has occurred', message });
}

const HEADINGS: Record<number, string> = {
  401: 'Admin sign-in required',
  403: 'Forbidden',
  404: 'Not found',
  429: 'Too many attempts',
};

export const NOT_FOUND = 'There is no application with this id.';

const CSRF_ERRORS = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

/**
 * The admin group's error handler (STYLE 5): refusals of the admin check, CSRF failures and malformed requests
 * become pages (or JSON for scripts); anything else goes on to the app-wide handler, which logs it and tells a
 * database outage (503) from a bug (500).
 */
export function adminErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof AdminRefused) {
    request.log.info({ event: 'admin.refused', status: error.statusCode, ip: request.ip }, error.message);
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    return sendAdminError(request, reply, error.statusCode, error.message);
  }
  if (CSRF_ERRORS.has(error.code)) {
    request.log.info({ csrf: error.code }, 'admin form refused: missing or invalid CSRF token');
    return sendAdminError(request, reply, 403, 'This form has expired or was not sent from this site. Go back, reload the page and try again.');
  }
  if (error.validation && error.validationContext === 'params') return sendAdminError(request, reply, 404, NOT_FOUND);
  if (error.validation) {
    request.log.info({ validation: error.message }, 'admin request validation failed');
    return sendAdminError(request, reply, 400, `The request is malformed: ${error.message}.`);
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    request.log.info({ err: error }, 'malformed admin request');
    const message =
      status === 413 ? 'The request body is too large.'
      : status === 415 ? 'Send application/x-www-form-urlencoded or application/json.'
      : 'The request is malformed.';
    return sendAdminError(request, reply, status, message);
  }
  throw error;
}
