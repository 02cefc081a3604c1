import { describe, expect, it } from 'vitest';
import { acceptedLanguages, negotiateLocale, textDirection } from '../../src/http/i18n/locale-negotiation.js';

const choose = (uiLocales: string | null, acceptLanguage?: string) => negotiateLocale({ uiLocales, acceptLanguage, defaultLocale: 'en' });

describe('the language of the end-user pages (OpenID Connect Core 3.1.2.1 ui_locales, RFC 9110 Accept-Language)', () => {
  it('ui_locales: the first supported tag wins, a regional tag is served by its language', () => {
    expect(choose('se de fr')).toBe('de');
    expect(choose('fr-CA de')).toBe('fr');
    expect(choose('JA')).toBe('ja');
  });

  it('ui_locales goes before Accept-Language', () => {
    expect(choose('es', 'de, fr;q=0.9')).toBe('es');
  });

  it('ui_locales with no supported tag falls back to Accept-Language, then to the default', () => {
    expect(choose('se nb', 'fr;q=0.5, de;q=0.9')).toBe('de');
    expect(choose('se')).toBe('en');
    expect(negotiateLocale({ uiLocales: 'se', acceptLanguage: 'pt-BR', defaultLocale: 'ja' })).toBe('ja');
  });

  it('Accept-Language is ordered by q-value, ties in the order sent; q=0, "*" and malformed q-values are dropped', () => {
    expect(acceptedLanguages('en;q=0.5, fr-CH, de;q=0.9, es;q=0.9')).toEqual(['fr-CH', 'de', 'es', 'en']);
    expect(acceptedLanguages('de;q=0, *, fr;q=2, es;q=abc, ja;q=0.001')).toEqual(['ja']);
    expect(acceptedLanguages('')).toEqual([]);
  });

  it('dir is derived from the locale: the five languages are ltr, a right-to-left one would be rtl', () => {
    for (const locale of ['en', 'de', 'fr', 'es', 'ja']) expect(textDirection(locale)).toBe('ltr');
    expect(textDirection('ar')).toBe('rtl');
    expect(textDirection('he-IL')).toBe('rtl');
  });
});
