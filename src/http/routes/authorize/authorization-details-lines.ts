import type { AuthorizationDetailsTypes } from '../../../oauth/resources/authorization-details-schemas.js';
import type { AuthorizationDetail } from '../../../oauth/resources/authorization-details.js';
import type { LocalizedText, PageLocale } from '../../../config/page-locales.js';
import { textOfPage } from '../../i18n/localized-text.js';

// RFC 9396 section 4: the consent page says what each authorization_details object asks for, in words. A resource
// gives each type a text with {{path}} placeholders ("Pay {{instructedAmount.amount}} {{instructedAmount.currency}}
// to {{creditorName}}"), per language like the config's scope texts; a type without one is shown as its fields. The
// placeholders are looked up, never evaluated (no template language runs on what a client sent), and the page
// escapes the result like any other text.

/** One object on the consent page: its type, and its text or (without a text for its type) its fields. */
export interface DetailLine {
  type: string;
  text: string | null;
  /** The text's language when it is defaultLocale's on a page in another language. */
  lang: PageLocale | null;
  fields: Array<[string, string]>;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*)\s*\}\}/g;
// A value's text is bounded: a client could send a megabyte of it.
const MAX_VALUE_LENGTH = 200;

export function detailLines(
  details: readonly AuthorizationDetail[],
  types: AuthorizationDetailsTypes,
  locale: PageLocale,
  defaultLocale: PageLocale,
): DetailLine[] {
  return details.map((detail) => {
    const consent = Object.hasOwn(types, detail.type) ? types[detail.type]!.consent : null;
    const template = consent === null ? { text: '', lang: null } : textOfPage(consent as LocalizedText, locale, defaultLocale);
    if (template.text !== '') return { type: detail.type, text: filledIn(template.text, detail), lang: template.lang, fields: [] };
    return { type: detail.type, text: null, lang: null, fields: fieldsOf(detail) };
  });
}

/** The template with each {{path}} replaced by that field's text ('' when the object has none). */
export function filledIn(template: string, detail: AuthorizationDetail): string {
  return template.replace(PLACEHOLDER, (_match, path: string) => {
    const found = path
      .split('.')
      .reduce<unknown>((value, key) => (isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined), detail);
    return found === undefined ? '' : textOf(found);
  });
}

/** The object's fields but its type, nested ones by their dotted path: the readable fallback. */
function fieldsOf(detail: AuthorizationDetail): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  const walk = (value: unknown, path: string) => {
    if (isRecord(value)) for (const [key, inner] of Object.entries(value)) walk(inner, path === '' ? key : `${path}.${key}`);
    else fields.push([path, textOf(value)]);
  };
  const { type: _type, ...rest } = detail;
  walk(rest, '');
  return fields;
}

function textOf(value: unknown): string {
  const text = Array.isArray(value) ? value.map(textOf).join(', ') : isRecord(value) ? JSON.stringify(value) : String(value);
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH)}…` : text;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
