import type { UserRecord } from '../oauth/store.js';
import {
  ADDRESS_FIELDS,
  BOOLEAN_CLAIMS,
  parseAddress,
  STRING_CLAIMS,
  type AddressField,
  type ProfileInput,
} from '../oauth/users/user-profile.js';
import { UsageError } from './io.js';

// The claim options of `users create` and `users update` (OpenID Connect Core 5.1): one option per claim,
// named after it with dashes (--given-name), and the user as JSON. An empty value ("") clears a claim.

const dashed = (claim: string) => claim.replaceAll('_', '-');

type StringOption = { type: 'string' };
type BooleanOption = { type: 'boolean' };

export const CLAIM_OPTIONS: Record<string, StringOption | BooleanOption> = Object.fromEntries([
  ...STRING_CLAIMS.map(({ claim }) => [dashed(claim), { type: 'string' }]),
  ...ADDRESS_FIELDS.map((field) => [`address-${dashed(field)}`, { type: 'string' }]),
  ...BOOLEAN_CLAIMS.flatMap(({ claim }) => [
    [dashed(claim), { type: 'boolean' }],
    [`no-${dashed(claim)}`, { type: 'boolean' }],
  ]),
]);

export const CLAIMS_HELP = `Claim options (OpenID Connect Core 5.1; an empty value "" clears a claim, an option not given leaves it as it is):
  ${STRING_CLAIMS.map(({ claim }) => `--${dashed(claim)} V`).join('  ')}
  --email-verified | --no-email-verified        --phone-number-verified | --no-phone-number-verified
  --address-formatted V  --address-street-address V  --address-locality V  --address-region V
  --address-postal-code V  --address-country V    (the members of the address claim; each merges on update)
  URLs (profile, picture, website) must be absolute https or http; birthdate is YYYY or YYYY-MM-DD (0000-MM-DD
  without the year); zoneinfo an IANA zone such as Europe/Paris; locale a BCP47 tag such as en-US.
`;

type OptionValues = Record<string, string | boolean | undefined>;

/** The claims among the parsed options: only those given, so an update changes nothing else. */
export function profileFromOptions(values: OptionValues): ProfileInput {
  const profile: ProfileInput = {};
  for (const { field, claim } of STRING_CLAIMS) {
    const value = values[dashed(claim)];
    if (typeof value === 'string') profile[field] = value;
  }
  for (const { field, claim } of BOOLEAN_CLAIMS) {
    const yes = values[dashed(claim)] === true;
    const no = values[`no-${dashed(claim)}`] === true;
    if (yes && no) throw new UsageError(`--${dashed(claim)} and --no-${dashed(claim)} contradict each other`);
    if (yes || no) profile[field] = yes;
  }
  const address: Partial<Record<AddressField, string>> = {};
  for (const member of ADDRESS_FIELDS) {
    const value = values[`address-${dashed(member)}`];
    if (typeof value === 'string') address[member] = value;
  }
  if (Object.keys(address).length > 0) profile.address = address;
  return profile;
}

/** A user as --json prints it: never the password hash. Claims by their Core names, address as its object. */
export function userJson(user: UserRecord) {
  const claims: Record<string, unknown> = {};
  for (const { field, claim } of STRING_CLAIMS) claims[claim] = user[field];
  for (const { field, claim } of BOOLEAN_CLAIMS) claims[claim] = user[field];
  claims.address = user.address === null ? null : parseAddress(user.address);
  return {
    id: user.id,
    username: user.username,
    subject: user.subject,
    created_at: user.createdAt.toISOString(),
    disabled_at: user.disabledAt?.toISOString() ?? null,
    profile_updated_at: user.profileUpdatedAt.toISOString(),
    claims,
  };
}

/** The claims that have a value, one `claim: value` line each (the text output of show, create and update). */
export function claimLines(user: UserRecord): string {
  const { claims } = userJson(user);
  return Object.entries(claims)
    .filter(([, value]) => value !== null && value !== false)
    .map(([claim, value]) => `  ${claim}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}\n`)
    .join('');
}
