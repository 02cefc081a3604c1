import type { UserRecord } from '../../../oauth/store.js';
import {
  ADDRESS_FIELDS,
  BOOLEAN_CLAIMS,
  parseAddress,
  STRING_CLAIMS,
  type AddressField,
  type ProfileInput,
} from '../../../oauth/users/user-profile.js';

/** The flat fields of the user forms, as the route schemas let them through. */
export type UserBody = Partial<Record<string, string | string[]>> & { username?: string; password?: string; _method?: string };

/** What the claims form shows: each field by its form name, as typed or as stored. */
export interface ClaimValues {
  text: Record<string, string>;
  checked: Record<string, boolean>;
}

const TRUE_VALUES = new Set(['1', 'true', 'on']);
const last = (value: string | string[] | undefined) => (Array.isArray(value) ? value.at(-1) : value);

/** The domain's input from a form: a field that was not sent leaves its claim as it is. */
export function profileFromBody(body: UserBody | undefined): ProfileInput {
  const profile: ProfileInput = {};
  if (!body) return profile;
  for (const { field, claim } of STRING_CLAIMS) {
    const value = last(body[claim]);
    if (value !== undefined) profile[field] = value;
  }
  for (const { field, claim } of BOOLEAN_CLAIMS) {
    const value = last(body[claim]);
    if (value !== undefined) profile[field] = TRUE_VALUES.has(value);
  }
  const address: Partial<Record<AddressField, string>> = {};
  for (const member of ADDRESS_FIELDS) {
    const value = last(body[`address_${member}`]);
    if (value !== undefined) address[member] = value;
  }
  if (Object.keys(address).length > 0) profile.address = address;
  return profile;
}

/** The form's values: what was typed when there is a body (a form with errors keeps it), else the stored claims. */
export function claimValues(user: UserRecord | null, body?: UserBody): ClaimValues {
  const address = parseAddress(user?.address ?? null);
  const text: Record<string, string> = {};
  const checked: Record<string, boolean> = {};
  for (const { field, claim } of STRING_CLAIMS) text[claim] = last(body?.[claim]) ?? user?.[field] ?? '';
  for (const member of ADDRESS_FIELDS) text[`address_${member}`] = last(body?.[`address_${member}`]) ?? address[member] ?? '';
  for (const { field, claim } of BOOLEAN_CLAIMS) {
    const sent = last(body?.[claim]);
    checked[claim] = sent !== undefined ? TRUE_VALUES.has(sent) : (user?.[field] ?? false);
  }
  return { text, checked };
}
