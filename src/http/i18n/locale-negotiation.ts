import { PAGE_LOCALES, type PageLocale } from '../../config/page-locales.js';

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
 * Accept-Language's ranges, most preferred first: by q-value, and in the order sent among equal ones. q=0 means "not
 * this one" and "*" names no language, so both are dropped; a malformed q-value drops only its own range.
 */
export function acceptedLanguages(header: string): string[] {
  const ranges: Array<{ tag: string; q: number; index: number }> = [];
  header.split(',').forEach((part, index) => {
    const [tag = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const q = qValue(parameters);
    if (tag !== '' && tag !== '*' && q !== null && q > 0) ranges.push({ tag, q, index });
  });
  return ranges.sort((a, b) => b.q - a.q || a.index - b.index).map(({ tag }) => tag);
}

// RFC 9110 section 12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ); absent means 1.
function qValue(parameters: readonly string[]): number | null {
  const q = parameters.find((parameter) => /^q\s*=/i.test(parameter));
  if (q === undefined) return 1;
  const value = q.replace(/^q\s*=\s*/i, '');
  return /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : null;
}

// Scripts written right to left; the five languages of today are all left to right, the markup follows this.
const RIGHT_TO_LEFT = new Set(['ar', 'arc', 'ckb', 'dv', 'fa', 'he', 'ks', 'ps', 'sd', 'ug', 'ur', 'yi']);

/** The `dir` attribute of a page in this language. */
export function textDirection(locale: string): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(locale.toLowerCase().split('-')[0]!) ? 'rtl' : 'ltr';
}
