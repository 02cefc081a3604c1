import { readFileSync } from 'node:fs';
import { PAGE_LOCALES } from '../config/page-locales.js';
import type { AuthorizationDetailsTypes } from '../oauth/resources/authorization-details-schemas.js';
import { boundedJson } from '../oauth/json-nesting.js';
import { UsageError } from './io.js';

// `resources create|update` and RFC 9396's authorization_details types: --authorization-details-types names the types
// the resource serves (the whole list), --authorization-details-schema TYPE=FILE gives one type its JSON Schema from a
// file, and --authorization-details-consent TYPE[:LANG]=TEXT its consent page text ({{path}} placeholders), for every
// language or for one. Or --authorization-details FILE: the whole declaration as one JSON file, as the admin form has
// it. The result is the JSON text the domain validates (resources.ts), so every refusal reads the same everywhere.

export const AUTHORIZATION_DETAILS_OPTIONS = {
  'authorization-details': { type: 'string' },
  'authorization-details-types': { type: 'string' },
  'authorization-details-schema': { type: 'string', multiple: true },
  'authorization-details-consent': { type: 'string', multiple: true },
} as const;

export const AUTHORIZATION_DETAILS_HELP = `      --authorization-details-types a,b
                          the authorization_details types it serves (RFC 9396), comma-separated; "" for none
      --authorization-details-schema TYPE=FILE
                          a type's JSON Schema (2019-09), read from FILE; repeat per type
      --authorization-details-consent TYPE[:LANG]=TEXT
                          what the consent page says for an object of TYPE, e.g. "Pay {{instructedAmount.amount}}
                          {{instructedAmount.currency}} to {{creditorName}}"; :LANG (en, de, fr, es, ja) for one
                          language; without one, the object's fields are listed
      --authorization-details FILE
                          instead of the three above: the whole declaration as JSON,
                          {"TYPE": {"schema": {...}, "consent": "TEXT" or {"en": "TEXT"}}}`;

interface DetailOptions {
  'authorization-details'?: string;
  'authorization-details-types'?: string;
  'authorization-details-schema'?: string[];
  'authorization-details-consent'?: string[];
}

/**
 * The declaration's JSON text from the options, built on `current` (an update keeps what is not named); undefined when
 * none of them was given.
 */
export function declarationFromOptions(values: DetailOptions, current: AuthorizationDetailsTypes): string | undefined {
  const file = values['authorization-details'];
  const types = values['authorization-details-types'];
  const schemas = values['authorization-details-schema'] ?? [];
  const consents = values['authorization-details-consent'] ?? [];
  if (file !== undefined) {
    if (types !== undefined || schemas.length > 0 || consents.length > 0) {
      throw new UsageError(
        '--authorization-details is the whole declaration: give it alone, or the other --authorization-details-* options',
      );
    }
    return readText(file, '--authorization-details');
  }
  if (types === undefined && schemas.length === 0 && consents.length === 0) return undefined;
  const names =
    types === undefined
      ? Object.keys(current)
      : types
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '');
  const declaration: Record<string, { schema: unknown; consent: unknown }> = Object.fromEntries(
    names.map((name) => [name, { schema: current[name]?.schema ?? null, consent: current[name]?.consent ?? null }]),
  );
  for (const option of schemas) {
    const [type, path] = assignment(option, '--authorization-details-schema', 'TYPE=FILE');
    const text = readText(path, `--authorization-details-schema ${type}`);
    try {
      entryOf(declaration, type, '--authorization-details-schema').schema = JSON.parse(text);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`--authorization-details-schema ${type}: ${path} is not JSON: ${(error as Error).message}`);
    }
  }
  // The texts for every language first, then those for one, which replace it in their language only.
  const parsed = consents.map((option) => assignment(option, '--authorization-details-consent', 'TYPE[:LANG]=TEXT'));
  for (const [target, text] of [
    ...parsed.filter(([target]) => !target.includes(':')),
    ...parsed.filter(([target]) => target.includes(':')),
  ]) {
    const [type, language] = target.split(':') as [string, string | undefined];
    const entry = entryOf(declaration, type, '--authorization-details-consent');
    if (language === undefined) entry.consent = text;
    else entry.consent = { ...textsByLanguage(entry.consent), [language]: text };
  }
  return names.length === 0 ? '' : boundedJson(declaration);
}

// A text for every language, as one per language, so that one language's text can replace it in that language alone.
function textsByLanguage(consent: unknown): Record<string, unknown> {
  if (typeof consent === 'string') return Object.fromEntries(PAGE_LOCALES.map((locale) => [locale, consent]));
  return typeof consent === 'object' && consent !== null ? { ...consent } : {};
}

function entryOf(declaration: Record<string, { schema: unknown; consent: unknown }>, type: string, option: string) {
  const entry = declaration[type];
  if (!entry || !Object.hasOwn(declaration, type)) {
    throw new UsageError(
      `${option}: ${type} is not one of the types (--authorization-details-types ${Object.keys(declaration).join(',')})`,
    );
  }
  return entry;
}

function assignment(option: string, name: string, form: string): [string, string] {
  const at = option.indexOf('=');
  if (at <= 0) throw new UsageError(`${name} takes ${form}, not ${JSON.stringify(option)}`);
  return [option.slice(0, at), option.slice(at + 1)];
}

function readText(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${option}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
