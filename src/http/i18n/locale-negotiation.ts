import { PAGE_LOCALES, type PageLocale } from '../../config/page-locales.js';
import { rankedRanges } from '../ranked-ranges.js';

// Which of the pages' languages a request gets, from what the client and the browser ask for. Pure, so each step is
// unit-tested without HTTP.

export interface LocalePreferences {
  /** OpenID Connect Core 3.1.2.1 ui_locales: space-separated BCP 47 tags, most preferred first; null when not sent. */
  uiLocales: string | null;
  /** The Accept-Language header (RFC 9110 section 12.5.4); undefined when not sent. */
  acceptLanguage: string | undefined;
  defaultLocale: PageLocale;
}

/** ui_locales first (the relying party speaks for its user), then Accept-Language, then the configured default. */
export function negotiateLocale({ uiLocales, acceptLanguage, defaultLocale }: LocalePreferences): PageLocale {
  return firstSupported(uiLocales?.split(' ') ?? []) ?? firstSupported(acceptedLanguages(acceptLanguage ?? '')) ?? defaultLocale;
}

/** The first tag one of the pages' languages serves: "de-CH" is served by "de" (RFC 4647 lookup, by primary subtag). */
export function firstSupported(tags: readonly string[]): PageLocale | null {
  for (const tag of tags) {
    const language = tag.trim().toLowerCase().split('-')[0]!;
    const supported = PAGE_LOCALES.find((locale) => locale === language);
    if (supported) return supported;
  }
  return null;
}

/**
 * Accept-Language's ranges, most preferred first (rankedRanges); "*" names no language, so it is dropped.
 */
export function acceptedLanguages(header: string): string[] {
  return rankedRanges(header).filter((tag) => tag !== '*');
}

// Scripts written right to left; the five languages of today are all left to right, the markup follows this.
const RIGHT_TO_LEFT = new Set(['ar', 'arc', 'ckb', 'dv', 'fa', 'he', 'ks', 'ps', 'sd', 'ug', 'ur', 'yi']);

/** The `dir` attribute of a page in this language. */
export function textDirection(locale: string): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(locale.toLowerCase().split('-')[0]!) ? 'rtl' : 'ltr';
}
