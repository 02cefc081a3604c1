import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GENERIC_INVALID_REQUEST, InvalidRequest, NotFound, OAuthError, UnsupportedMediaType } from '../../../oauth/errors.js';
import { applyErrorResponse, errorResponse, logRefusal, requestError } from '../../error-response.js';
import { validationMessage } from '../../validation-message.js';

// How the admin group answers: the same routes serve HTML pages to browsers and JSON to scripts that send
// Accept: application/json or a JSON body (SPEC 3.6).

export function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\bapplication\/json\b/i.test(accept) || mediaType(request) === 'application/json';
}

export function mediaType(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** How a section renders a page of views/<folder> inside the layout, with the one-time notice and a CSRF token for its forms. */
export function adminPageRenderer(folder: string) {
  return function renderAdminPage(request: FastifyRequest, reply: FastifyReply, template: string, model: object): FastifyReply {
    const notice = request.session.get('notice');
    if (notice !== undefined) request.session.set('notice', undefined);
    return reply.view(`${folder}/${template}`, { ...model, notice, csrfToken: reply.generateCsrf() });
  };
}

export const renderAdminPage = adminPageRenderer('applications');

/**
 * An error of the catalogue as a small page, or as its JSON body for scripts; errorResponse decides the status
 * and headers. `realm` is needed only for the sign-in challenge of a 401.
 */
export function sendAdminError(request: FastifyRequest, reply: FastifyReply, error: OAuthError, realm: string | null = null): FastifyReply {
  const response = errorResponse(error, realm);
  applyErrorResponse(reply, response);
  if (wantsJson(request)) return reply.send(response.body);
  return reply.view('applications/error.eta', {
    title: HEADINGS[response.status] ?? 'An error has occurred',
    message: response.body.error_description,
  });
}

const HEADINGS: Record<number, string> = {
  401: 'Admin sign-in required',
  403: 'Forbidden',
  404: 'Not found',
  429: 'Too many attempts',
};

export const NOT_FOUND = 'There is no application with this id.';

/**
 * The admin group's error handler (STYLE 5): refusals of the admin check, CSRF failures and malformed requests
 * become pages (or JSON for scripts), in the admin's own words; anything else goes on to the app-wide handler,
 * which logs it and tells a database outage (503) from a bug (500).
 */
export function adminErrorHandler(realm: string) {
  return function adminError(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (error instanceof OAuthError) {
      request.log.info({ event: 'admin.refused', status: error.status, ip: request.ip }, error.message);
      return sendAdminError(request, reply, error, realm);
    }
    const refusal = requestError(error);
    if (refusal === null) throw error;
    logRefusal(request, error, refusal);
    return sendAdminError(request, reply, inAdminWords(request, error, refusal), realm);
  };
}

/** The admin error handler of another section (resources, users): the same, with a bad id that section's 404 page. */
export function sectionErrorHandler(realm: string, notFound: string) {
  const handle = adminErrorHandler(realm);
  return function sectionError(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if ('validation' in error && error.validation && error.validationContext === 'params') {
      return sendAdminError(request, reply, new NotFound(notFound));
    }
    return handle(error, request, reply);
  };
}

function inAdminWords(request: FastifyRequest, error: FastifyError, refusal: OAuthError): OAuthError {
  if (error.validation && error.validationContext === 'params') return new NotFound(NOT_FOUND);
  if (error.validation)
    return new InvalidRequest(
      `The request is malformed: ${validationMessage(request, error.validation, error.validationContext ?? 'body')}.`,
    );
  if (refusal instanceof UnsupportedMediaType)
    return new UnsupportedMediaType('Send application/x-www-form-urlencoded or application/json.');
  // What the refusal says of the body (not valid JSON, empty) stays; the OAuth catalogue's generic text does not.
  if (refusal instanceof InvalidRequest && refusal.description === GENERIC_INVALID_REQUEST)
    return new InvalidRequest('The request is malformed.');
  return refusal;
}
