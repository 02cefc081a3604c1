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

// Per request: the language chosen (on first use), and the ui_locales of its authorization request where the request's
// own parameters do not show them (useRequestUiLocales).
const chosen = new WeakMap<FastifyRequest, PageLanguage>();
const resolvedUiLocales = new WeakMap<FastifyRequest, string>();

/**
 * The ui_locales of the authorization request this request shows a page for, as validation resolved it: a pushed
 * request's (RFC 9126) or a request object's (RFC 9101), which neither the query nor the form carries.
 */
export function useRequestUiLocales(request: FastifyRequest, uiLocales: string | null): void {
  if (uiLocales === null || requestedUiLocales(request) !== null) return;
  resolvedUiLocales.set(request, uiLocales);
  chosen.delete(request);
}

/**
 * The end users' pages in their language (issue 35 item 6): one message catalog for the process, and for each
 * request the language its ui_locales, Accept-Language or the config's defaultLocale chooses.
 */
export const pageLanguagesPlugin = fp<PageLanguagesOptions>(
  async (app, { defaultLocale }) => {
    const catalog = createMessageCatalog();
    app.decorateRequest('pageLanguage', {
      getter(this: FastifyRequest) {
        let language = chosen.get(this);
        if (language === undefined) {
          const uiLocales = requestedUiLocales(this) ?? resolvedUiLocales.get(this) ?? null;
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
  if (typeof returnTo !== 'string') return null;
  const shown = returnTo.includes('?') ? new URLSearchParams(returnTo.slice(returnTo.indexOf('?') + 1)).get('ui_locales') : null;
  if (shown !== null) return shown;
  // A pushed or signed request's, kept for this very returnTo (another sign-in's must not stick).
  const kept = request.session.get('returnToUiLocales');
  return kept?.returnTo === returnTo ? kept.uiLocales : null;
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
