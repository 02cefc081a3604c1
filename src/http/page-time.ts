import type { PageLocale } from '../config/page-locales.js';

// English dates as "25 November 2026" (day, month, year); the other languages as their own locale writes them.
const DATE_LOCALE: Partial<Record<PageLocale, string>> = { en: 'en-GB' };

/** The Intl locale the end-user pages format dates with in this page language. */
export const dateLocaleOf = (locale: PageLocale): string => DATE_LOCALE[locale] ?? locale;

// The server does not know the reader's time zone: every page time is in UTC, and says so ("… 16:33:58 UTC").
const formats = new Map<PageLocale, Intl.DateTimeFormat>();

function formatOf(locale: PageLocale): Intl.DateTimeFormat {
  let format = formats.get(locale);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(dateLocaleOf(locale), { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' });
    formats.set(locale, format);
  }
  return format;
}

/**
 * An instant as the end-user pages show it: the date and time in the page's language ("29. November 2026 um 16:33:58
 * UTC", "2026年11月29日 16:33:58 UTC"), and the ISO form for a <time datetime>.
 */
export function pageTime(date: Date, locale: PageLocale): { text: string; iso: string } {
  return { text: formatOf(locale).format(date), iso: date.toISOString() };
}

/** An instant as the admin pages show it, in English only and sortable: "2026-11-29 16:33:58 UTC". */
export const adminTime = (date: Date): string => `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
