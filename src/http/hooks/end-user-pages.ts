import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthError } from '../../oauth/errors.js';
import { applyErrorResponse, errorResponse, logRefusal, requestError } from '../error-response.js';
import { noStore } from '../no-store.js';

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
  return noStore(reply, { pragma: false }).view(template, { ...languageModel(request), ...model, notice });
}

/** What every end-user view gets to speak the user's language: <html lang dir> in the layout, t and around in the page. */
export function languageModel(request: FastifyRequest) {
  const { locale, dir, t, around } = request.pageLanguage;
  return { lang: locale, dir, t, around };
}

/**
 * Reference 15.3: "An error has occurred" and the description. errorResponse decides (status, no-store), the
 * page shows the same status and description the API would send as JSON: the heading is in the user's language, the
 * description stays the English error_description of the RFCs (what a client would log and an operator search for).
 */
export function renderError(reply: FastifyReply, error: OAuthError, link?: PageLink): FastifyReply {
  const response = errorResponse(error, null);
  const language = languageModel(reply.request);
  return applyErrorResponse(reply, response).view('authorization-error.eta', {
    ...language,
    title: language.t('error.title'),
    description: response.body.error_description,
    link,
  });
}

/**
 * The error handler of the end users' route groups (STYLE 5): an error here is always a page on this server,
 * never a redirect. Expected errors are logged at info; 5xx go on to the app-wide handler, which logs them and
 * knows a database outage (503) from a bug (500).
 */
export function endUserErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const refusal = requestError(error);
  if (refusal === null) throw error;
  logRefusal(request, error, refusal);
  return renderError(reply, refusal);
}
