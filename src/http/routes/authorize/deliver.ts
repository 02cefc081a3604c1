import type { FastifyReply } from 'fastify';
import type { AuthorizationDelivery } from '../../../oauth/authorization/authorization-response.js';
import type { OAuthError } from '../../../oauth/errors.js';
import { errorPageModel, languageModel, renderError } from '../../hooks/end-user-pages.js';
import { noStore } from '../../no-store.js';
import { returnDestination } from '../../client-links.js';
import type { RedirectStatus } from '../../redirect-status.js';

export const NATIVE_PATH = '/oauth/authorize/native';

/**
 * Sends an authorization response (reference 4.5). GET answers 302; POST and DELETE answer 303 so the browser
 * follows with a GET and never re-posts the form to the client. Codes and tokens must not be cached.
 */
export function sendDelivery(reply: FastifyReply, delivery: AuthorizationDelivery, redirectStatus: RedirectStatus): FastifyReply {
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

/**
 * RFC 9700 section 4.11.2: the error for a client no admin vouches for (anyone may have registered it, with any
 * redirect URI), on this server's error page, with the way on for the user to take: a link, or a form for form_post.
 * Never sent on automatically, so a link to this server cannot send a browser to the registrant's site unasked.
 */
export function sendHeldError(
  reply: FastifyReply,
  error: OAuthError,
  delivery: AuthorizationDelivery,
  redirectUri: string,
  baseUrl: string,
): FastifyReply {
  noStore(reply, { pragma: false });
  const page = errorPageModel(reply, error);
  const onward =
    delivery.kind === 'form_post'
      ? { action: delivery.action, fields: delivery.fields }
      : delivery.kind === 'redirect'
        ? { href: delivery.location }
        : null;
  if (onward === null) return renderError(reply, error);
  const { t } = reply.request.pageLanguage;
  const held = {
    operator: t('consent.operatorOf', { host: new URL(baseUrl).host }),
    destination: returnDestination(redirectUri, reply.request.pageLanguage),
    ...onward,
  };
  return reply.view('authorization-error.eta', { ...page, held });
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
