import type { i18n } from 'i18next';
import type { PageLocale } from '../../config/page-locales.js';
import { textDirection } from './locale-negotiation.js';

/** Looks up a message of the page's language, with {{name}} placeholders filled in. */
export type Translate = (key: string, values?: Record<string, string | number>) => string;

/** What a page needs to speak the user's language; every end-user view gets it (end-user-pages.ts). */
export interface PageLanguage {
  locale: PageLocale;
  /** The `dir` of <html>: derived from the locale, so a right-to-left one lays out right to left. */
  dir: 'ltr' | 'rtl';
  /** The ui_locales this request carried (query, form, or the authorization request a sign-in returns to); null: none. */
  uiLocales: string | null;
  t: Translate;
  /**
   * A message split around one placeholder, for a template that wraps the value in markup (<strong>): it prints
   * before, the value, and after, every part escaped, so translations never need raw HTML.
   */
  around: (key: string, placeholder: string, values?: Record<string, string | number>) => { before: string; after: string };
}

// Cannot occur in a message file or a value the pages show.
const SPLIT_MARK = '\u0000';

export function pageLanguage(catalog: i18n, locale: PageLocale, uiLocales: string | null): PageLanguage {
  const fixed = catalog.getFixedT(locale);
  const t: Translate = (key, values) => fixed(key, values ?? {});
  return {
    locale,
    dir: textDirection(locale),
    uiLocales,
    t,
    around(key, placeholder, values) {
      const [before = '', after = ''] = t(key, { ...values, [placeholder]: SPLIT_MARK }).split(SPLIT_MARK);
      return { before, after };
    },
  };
}
