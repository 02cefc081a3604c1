import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { PageLocale } from '../../config/page-locales.js';
import { negotiateLocale } from '../i18n/locale-negotiation.js';
import { createMessageCatalog } from '../i18n/message-catalog.js';
import { pageLanguage, type PageLanguage } from '../i18n/page-language.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The language of the end-user page this request shows; worked out on first use (the API never pays for it). */
    readonly pageLanguage: PageLanguage;
  }
}

export interface PageLanguagesOptions {
  defaultLocale: PageLocale;
}

/**
 * The end users' pages in their language (issue 35 item 6): one message catalog for the process, and for each
 * request the language its ui_locales, Accept-Language or the config's defaultLocale chooses.
 */
export const pageLanguagesPlugin = fp<PageLanguagesOptions>(
  async (app, { defaultLocale }) => {
    const catalog = createMessageCatalog();
    const chosen = new WeakMap<FastifyRequest, PageLanguage>();
    app.decorateRequest('pageLanguage', {
      getter(this: FastifyRequest) {
        let language = chosen.get(this);
        if (language === undefined) {
          const uiLocales = requestedUiLocales(this);
          const locale = negotiateLocale({ uiLocales, acceptLanguage: this.headers['accept-language'], defaultLocale });
          language = pageLanguage(catalog, locale, uiLocales);
          chosen.set(this, language);
        }
        return language;
      },
    });
  },
  { name: 'page-languages' },
);

/**
 * OpenID Connect Core 3.1.2.1 ui_locales: the request's own (the authorization request as a link or a form, the
 * consent form, which sends it again, or end_session), else, on the sign-in pages only, that of the authorization
 * request the sign-in will return to, so they speak the language the relying party asked for. Any other page (a later
 * consent, /account, the device page) is not that request's: a sign-in abandoned in one language must not stick.
 */
function requestedUiLocales(request: FastifyRequest): string | null {
  const own = uiLocalesIn(request.query) ?? uiLocalesIn(request.body);
  if (own !== null || !isSignInPage(request)) return own;
  // Only the pages' routes have a session; the returnTo path was checked to be a path on this server when stored.
  const returnTo: unknown = request.session?.get('returnTo');
  if (typeof returnTo !== 'string' || !returnTo.includes('?')) return null;
  return new URLSearchParams(returnTo.slice(returnTo.indexOf('?') + 1)).get('ui_locales');
}

// The pages that return to returnTo: the sign-in, its second factor, passkey and upstream sign-in and its failures.
function isSignInPage(request: FastifyRequest): boolean {
  const [path = ''] = request.url.split('?', 1);
  return path === '/login' || path.startsWith('/login/');
}

function uiLocalesIn(parameters: unknown): string | null {
  if (typeof parameters !== 'object' || parameters === null) return null;
  const value = (parameters as Record<string, unknown>).ui_locales;
  return typeof value === 'string' ? value : null;
}
