import type { FastifyReply } from 'fastify';
import type { AuthorizationDelivery } from '../../../oauth/authorization/authorization-response.js';
import { languageModel, renderError } from '../../hooks/end-user-pages.js';
import { noStore } from '../../no-store.js';

export const NATIVE_PATH = '/oauth/authorize/native';

/**
 * Sends an authorization response (reference 4.5). GET answers 302; POST and DELETE answer 303 so the browser
 * follows with a GET and never re-posts the form to the client. Codes and tokens must not be cached.
 */
export function sendDelivery(reply: FastifyReply, delivery: AuthorizationDelivery, redirectStatus: 302 | 303): FastifyReply {
  noStore(reply, { pragma: false });
  switch (delivery.kind) {
    case 'redirect':
      return reply.redirect(delivery.location, redirectStatus);
    case 'native':
      return reply.redirect(nativePageUrl(reply, delivery.code), redirectStatus);
    case 'form_post':
      return reply.view('form-post.eta', formPostModel(reply, delivery.action, delivery.fields));
    case 'page':
      return renderError(reply, delivery.error);
  }
}

// The out-of-band code page, in the language of the request it answers (OpenID Connect Core 3.1.2.1 ui_locales).
function nativePageUrl(reply: FastifyReply, code: string): string {
  const query = new URLSearchParams({ code });
  const { uiLocales } = reply.request.pageLanguage;
  if (uiLocales !== null) query.set('ui_locales', uiLocales);
  return `${NATIVE_PATH}?${query.toString()}`;
}

// The page that posts the response to the client (OAuth 2.0 Form Post Response Mode), in the user's language.
function formPostModel(reply: FastifyReply, action: string, fields: ReadonlyArray<[string, string]>) {
  const language = languageModel(reply.request);
  return { ...language, title: language.t('formPost.title'), action, fields };
}
