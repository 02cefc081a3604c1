import type { LocalizedText, PageLocale } from '../../config/page-locales.js';

/**
 * A config text in the page's language: a plain string serves every language; a per-language one gives this
 * language's text, else defaultLocale's (the loader requires that one).
 */
export function localizedText(text: LocalizedText, locale: PageLocale, defaultLocale: PageLocale): string {
  if (typeof text === 'string') return text;
  return text[locale] ?? text[defaultLocale] ?? '';
}
