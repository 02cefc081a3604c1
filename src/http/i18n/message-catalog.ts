import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import i18next, { type i18n } from 'i18next';
import { PAGE_LOCALES, type PageLocale } from '../../config/page-locales.js';

/** locales/, found from both src/http/i18n (tsx) and dist/http/i18n (compiled), like views/. */
export const LOCALES_DIR =
  [join(import.meta.dirname, '../../../locales'), join(process.cwd(), 'locales')].find((dir) => existsSync(dir)) ??
  join(process.cwd(), 'locales');

/** One language's messages, as locales/<locale>.json holds them: nested objects of strings. */
export type Messages = { [key: string]: string | Messages };

export function readMessages(locale: PageLocale, dir = LOCALES_DIR): Messages {
  return JSON.parse(readFileSync(join(dir, `${locale}.json`), 'utf8')) as Messages;
}

/**
 * The i18next instance of the pages, built once at startup from every message file (read synchronously, so a
 * missing or broken file fails the boot, not a page). Values are not HTML-escaped here: Eta escapes everything the
 * templates print. A key a file lacks falls back to English (a unit test keeps the files complete).
 */
export function createMessageCatalog(dir = LOCALES_DIR): i18n {
  const catalog = i18next.createInstance();
  void catalog.init({
    resources: Object.fromEntries(PAGE_LOCALES.map((locale) => [locale, { translation: readMessages(locale, dir) }])),
    lng: 'en',
    fallbackLng: 'en',
    supportedLngs: [...PAGE_LOCALES],
    initAsync: false,
    interpolation: { escapeValue: false },
    returnEmptyString: false,
    // i18next 25 prints an advertisement to stdout at its first init: not in an operator's logs.
    showSupportNotice: false,
  });
  return catalog;
}
