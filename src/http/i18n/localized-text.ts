import type { LocalizedText, PageLocale } from '../../config/page-locales.js';

/**
 * A config text in the page's language: a plain string serves every language; a per-language one gives this
 * language's text, else defaultLocale's (the loader requires that one).
 */
export function localizedText(text: LocalizedText, locale: PageLocale, defaultLocale: PageLocale): string {
  return textOfPage(text, locale, defaultLocale).text;
}

/** A text on a page, and its language when that is not the page's (WCAG 3.1.2: the element gets a lang attribute). */
export interface PageText {
  text: string;
  lang: PageLocale | null;
}

/** localizedText, saying when the text is defaultLocale's in place of the page's language. */
export function textOfPage(text: LocalizedText, locale: PageLocale, defaultLocale: PageLocale): PageText {
  if (typeof text === 'string') return { text, lang: null };
  const own = text[locale];
  if (own !== undefined) return { text: own, lang: null };
  return { text: text[defaultLocale] ?? '', lang: locale === defaultLocale ? null : defaultLocale };
}
