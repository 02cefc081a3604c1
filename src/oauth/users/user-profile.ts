import type { UserClaims } from '../store.js';

// A user's standard claims (OpenID Connect Core 5.1) as the admin UI and the CLI set them: one ordered table of
// named rules per claim, every message a full sentence that starts with the claim's label.

export type StringClaim = Exclude<keyof UserClaims, 'emailVerified' | 'phoneNumberVerified' | 'address'>;
export type BooleanClaim = 'emailVerified' | 'phoneNumberVerified';

/** Core 5.1.1: the members of the address claim, by their JSON names. */
export const ADDRESS_FIELDS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];
export type AddressClaim = Partial<Record<AddressField, string>>;

/**
 * What a caller changes: a claim that is absent stays as it is; null or an empty (or all-blank) string clears it.
 * Address members merge one by one into the current address; values arrive as `unknown` so a JSON body of the
 * wrong type gets a message, not a crash.
 */
export type ProfileInput = Partial<Record<StringClaim, string | null>> &
  Partial<Record<BooleanClaim, boolean>> & { address?: Partial<Record<AddressField, unknown>> | null };

/** Problems by field name as forms and the CLI name them: the claim's name (given_name) or address_<member>. */
export type ProfileErrors = Record<string, string[]>;

type Rule = (value: string) => string | null;

interface ClaimDefinition {
  field: StringClaim;
  /** The Core 5.1 claim name: the form field, the CLI option (with dashes) and the JSON member. */
  claim: string;
  label: string;
  rules: Rule[];
}

const MAX_LENGTH = 255;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINES = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

// The WHATWG HTML "valid email address": what browsers accept in <input type=email>.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

const email: Rule = (value) => (EMAIL.test(value) ? null : 'must be an email address, such as alice@example.com');

// Core 5.1: profile, picture and website are URLs of web pages or images: absolute http(s) only, so a
// javascript: or data: URL can never reach a relying party's page; stored as typed, so the characters a URL
// must percent-encode (which could break out of an attribute on a careless page) are refused.
const webUrl: Rule = (value) => {
  if (/[\s"'<>`{}|\\^]/.test(value)) return 'must not contain spaces, quotes, angle brackets or backslashes';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute https or http URL';
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' ? null : 'must be an absolute https or http URL';
};

// Core 5.1: ISO 8601 YYYY-MM-DD, or YYYY alone; the year 0000 means "year omitted" (0000-MM-DD).
const birthdate: Rule = (value) => {
  const message = 'must be YYYY or YYYY-MM-DD (0000-MM-DD when the year is not known)';
  const match = /^(\d{4})(?:-(\d{2})-(\d{2}))?$/.exec(value);
  if (!match) return message;
  const [, year, month, day] = match;
  if (month === undefined || day === undefined) return year === '0000' ? message : null;
  // The year 0000 is taken as a leap year, so 0000-02-29 (a birthday, year unknown) is valid.
  const lastDay = new Date(Date.UTC(year === '0000' ? 2000 : Number(year), Number(month), 0)).getUTCDate();
  return Number(month) >= 1 && Number(month) <= 12 && Number(day) >= 1 && Number(day) <= lastDay ? null : message;
};

// Core 5.1: a zone of the IANA time zone database, such as Europe/Paris.
const zoneinfo: Rule = (value) => {
  const message = 'must be a time zone of the IANA database, such as Europe/Paris';
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(value)) return message;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return null;
  } catch {
    return message;
  }
};

// Core 5.1: a BCP47 language tag such as en-US; the underscore form (en_US) is accepted for compatibility.
const locale: Rule = (value) => {
  const message = 'must be a BCP47 language tag, such as en-US or fr-CA';
  if (!/^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/.test(value)) return message;
  try {
    Intl.getCanonicalLocales(value.replaceAll('_', '-'));
    return null;
  } catch {
    return message;
  }
};

// Core 5.1 recommends E.164 (+1 (425) 555-1212, with ;ext=5678 for extensions): printable ASCII with a digit.
const phoneNumber: Rule = (value) =>
  /^[\x20-\x7e]+$/.test(value) && /\d/.test(value) ? null : 'must be printable ASCII with digits, such as +1 (425) 555-1212';

const claim = (field: StringClaim, name: string, label: string, ...rules: Rule[]): ClaimDefinition => ({
  field,
  claim: name,
  label,
  rules,
});

/** The string claims in the order the forms and the CLI's help show them. */
export const STRING_CLAIMS: readonly ClaimDefinition[] = [
  claim('name', 'name', 'Name'),
  claim('givenName', 'given_name', 'Given name'),
  claim('familyName', 'family_name', 'Family name'),
  claim('middleName', 'middle_name', 'Middle name'),
  claim('nickname', 'nickname', 'Nickname'),
  claim('preferredUsername', 'preferred_username', 'Preferred username'),
  claim('email', 'email', 'Email', email),
  claim('phoneNumber', 'phone_number', 'Phone number', phoneNumber),
  claim('profile', 'profile', 'Profile', webUrl),
  claim('picture', 'picture', 'Picture', webUrl),
  claim('website', 'website', 'Website', webUrl),
  claim('gender', 'gender', 'Gender'),
  claim('birthdate', 'birthdate', 'Birthdate', birthdate),
  claim('zoneinfo', 'zoneinfo', 'Zoneinfo', zoneinfo),
  claim('locale', 'locale', 'Locale', locale),
];

export const BOOLEAN_CLAIMS: ReadonlyArray<{ field: BooleanClaim; claim: string; label: string }> = [
  { field: 'emailVerified', claim: 'email_verified', label: 'Email verified' },
  { field: 'phoneNumberVerified', claim: 'phone_number_verified', label: 'Phone number verified' },
];

export const ADDRESS_LABELS: Record<AddressField, string> = {
  formatted: 'Formatted address',
  street_address: 'Street address',
  locality: 'Locality',
  region: 'Region',
  postal_code: 'Postal code',
  country: 'Country',
};

// Core 5.1.1: only the full address and the street may span lines.
const MULTILINE_ADDRESS: ReadonlySet<AddressField> = new Set(['formatted', 'street_address']);

/** Trimmed; empty means "no value". */
const normalized = (value: string | null | undefined) => (value == null || value.trim() === '' ? null : value.trim());

function textErrors(value: string, label: string, multiline = false): string[] {
  const errors: string[] = [];
  if ([...value].length > MAX_LENGTH) errors.push(`${label} is too long (maximum is ${MAX_LENGTH} characters)`);
  if ((multiline ? CONTROL_BUT_NEWLINES : CONTROL).test(value)) errors.push(`${label} must not contain control characters`);
  return errors;
}

export class UserInvalid extends Error {
  constructor(readonly fieldErrors: ProfileErrors) {
    super(Object.values(fieldErrors).flat().join(' '));
  }

  get messages(): string[] {
    return Object.values(this.fieldErrors).flat();
  }
}

export interface ResolvedProfile {
  /** The claims that differ from `current`, as they are to be stored. */
  changes: Partial<UserClaims>;
  errors: ProfileErrors;
}

/** Validates `input` and works out what it changes in `current` (null: a new user, every claim empty). */
export function resolveProfile(current: UserClaims | null, input: ProfileInput): ResolvedProfile {
  const errors: ProfileErrors = {};
  const changes: Partial<UserClaims> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);

  for (const { field, claim: name, label, rules } of STRING_CLAIMS) {
    if (!(field in input)) continue;
    const value = normalized(input[field]);
    if (value !== null) {
      const problems = textErrors(value, label);
      for (const rule of problems.length === 0 ? rules : []) {
        const message = rule(value);
        if (message !== null) problems.push(`${label} ${message}`);
      }
      for (const message of problems) add(name, message);
    }
    if (value !== (current?.[field] ?? null)) changes[field] = value;
  }
  for (const { field } of BOOLEAN_CLAIMS) {
    const value = input[field];
    if (value !== undefined && value !== (current?.[field] ?? false)) changes[field] = value;
  }
  if (input.address !== undefined) {
    const address = mergedAddress(parseAddress(current?.address ?? null), input.address, add);
    if (address !== (current?.address ?? null)) changes.address = address;
  }
  return { changes, errors };
}

/** The stored address claim (JSON text) as its members; a value that is not such JSON has none. */
export function parseAddress(text: string | null): AddressClaim {
  if (text === null) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return {};
    const members = parsed as Record<string, unknown>;
    return Object.fromEntries(ADDRESS_FIELDS.flatMap((key) => (typeof members[key] === 'string' ? [[key, members[key]]] : [])));
  } catch {
    return {};
  }
}

function mergedAddress(
  current: AddressClaim,
  input: Partial<Record<AddressField, unknown>> | null,
  add: (field: string, message: string) => void,
): string | null {
  const merged: AddressClaim = input === null ? {} : { ...current };
  for (const key of ADDRESS_FIELDS) {
    if (input === null || !(key in input)) continue;
    const given = input[key];
    if (given !== null && given !== undefined && typeof given !== 'string') {
      add(`address_${key}`, `${ADDRESS_LABELS[key]} must be a string`);
      continue;
    }
    const value = normalized(given);
    if (value === null) delete merged[key];
    else {
      for (const message of textErrors(value, ADDRESS_LABELS[key], MULTILINE_ADDRESS.has(key))) add(`address_${key}`, message);
      merged[key] = value;
    }
  }
  // The members in Core's order, so the same address is always the same text.
  const ordered = ADDRESS_FIELDS.flatMap((key) => (merged[key] === undefined ? [] : [[key, merged[key]]]));
  return ordered.length === 0 ? null : JSON.stringify(Object.fromEntries(ordered));
}
