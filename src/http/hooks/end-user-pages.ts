import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { PageLocale } from '../../config/page-locales.js';
import { FormExpired, type OAuthError } from '../../oauth/errors.js';
import { applyErrorResponse, errorResponse, logRefusal, requestError } from '../error-response.js';
import { readMessages, type Messages } from '../i18n/message-catalog.js';
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
 * page shows the same status and description the API would send as JSON, the heading in the user's language. The
 * catalogue's own descriptions (Doorkeeper's texts, the disabled application's) are in the user's language too; one
 * that says more (the parameter at fault, a metadata document's list) stays the English error_description a client
 * would log and an operator search for, marked as English.
 */
export function renderError(reply: FastifyReply, error: OAuthError, link?: PageLink): FastifyReply {
  return reply.view('authorization-error.eta', { ...errorPageModel(reply, error), link });
}

/** The error page's view model; the reply gets the error's status and headers. */
export function errorPageModel(reply: FastifyReply, error: OAuthError) {
  const response = errorResponse(error, null);
  const language = languageModel(reply.request);
  const description = pageDescription(error, response.body.error_description, language.t);
  applyErrorResponse(reply, response);
  return {
    ...language,
    title: language.t('error.title'),
    description,
    descriptionLang: language.lang === 'en' || isPageMessage(language.lang, description) ? null : 'en',
  };
}

// The API keeps the English texts; a page says them as locales/*.json's oauthErrors does.
function pageDescription(error: OAuthError, englishDescription: string, t: FastifyRequest['pageLanguage']['t']): string {
  if (error instanceof FormExpired) return t('error.formExpired');
  const key = catalogueKeyOf(englishDescription);
  return key === undefined ? englishDescription : t(`oauthErrors.${key}`);
}

let catalogueKeys: Map<string, string> | undefined;

function catalogueKeyOf(englishDescription: string): string | undefined {
  catalogueKeys ??= new Map(Object.entries(readMessages('en').oauthErrors as Messages).map(([key, text]) => [String(text), key]));
  return catalogueKeys.get(englishDescription);
}

const pageMessages = new Map<PageLocale, Set<string>>();

/**
 * WCAG 3.1.2: the English description on a page in another language is marked lang="en"; not a route's refusal in the
 * page's language (t('passkeys.notFound')), which is a text of that locale's catalog.
 */
function isPageMessage(locale: PageLocale, text: string): boolean {
  let messages = pageMessages.get(locale);
  if (messages === undefined) {
    messages = new Set(texts(readMessages(locale)));
    pageMessages.set(locale, messages);
  }
  return messages.has(text);
}

function texts(messages: Messages): string[] {
  return Object.values(messages).flatMap((value) => (typeof value === 'string' ? [value] : texts(value)));
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
