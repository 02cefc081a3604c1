import type { UserRecord } from '../users/user-store.js';

// The standard claims of OpenID Connect Core 1.0 section 5.1 as this provider holds them for a user (users.* columns),
// and which of them each scope value asks for (section 5.4): what UserInfo, ID tokens and the claims request
// parameter (section 5.5) may release, and what discovery's claims_supported names.

/** Core 5.4: the claims each scope value asks for. */
export const SCOPE_CLAIMS = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
} as const satisfies Record<string, readonly string[]>;

export type ClaimScope = keyof typeof SCOPE_CLAIMS;
export type ScopedClaim = (typeof SCOPE_CLAIMS)[ClaimScope][number];

/** The user claims this provider can return (discovery's claims_supported adds the ID token's own). */
export const CLAIMS_SUPPORTED: readonly string[] = ['sub', ...Object.values(SCOPE_CLAIMS).flat()];

/** Core 5.1.1: the members of the address claim, all strings. */
const ADDRESS_MEMBERS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;

export type ClaimValue = string | number | boolean | Record<string, string>;
export type UserinfoClaims = { sub: string } & Record<string, ClaimValue>;

// Core 5.3.2: a claim without a value is omitted, never null or the empty string; hence text() and the
// verified flags only next to the value they vouch for.
const text = (value: string | null): string | null => (value === null || value === '' ? null : value);

const CLAIM_VALUES: Record<ScopedClaim, (user: UserRecord) => ClaimValue | null> = {
  name: (user) => text(user.name),
  family_name: (user) => text(user.familyName),
  given_name: (user) => text(user.givenName),
  middle_name: (user) => text(user.middleName),
  nickname: (user) => text(user.nickname),
  preferred_username: (user) => text(user.preferredUsername),
  profile: (user) => text(user.profile),
  picture: (user) => text(user.picture),
  website: (user) => text(user.website),
  gender: (user) => text(user.gender),
  birthdate: (user) => text(user.birthdate),
  zoneinfo: (user) => text(user.zoneinfo),
  locale: (user) => text(user.locale),
  // Core 5.1: updated_at is a JSON number of seconds since the epoch.
  updated_at: (user) => Math.floor(user.profileUpdatedAt.getTime() / 1000),
  email: (user) => text(user.email),
  email_verified: (user) => (text(user.email) === null ? null : user.emailVerified),
  address: (user) => addressClaim(user.address),
  phone_number: (user) => text(user.phoneNumber),
  phone_number_verified: (user) => (text(user.phoneNumber) === null ? null : user.phoneNumberVerified),
};

/**
 * Core 5.1.1's address object from its stored JSON: only the known string members. Text that is not such an
 * object (a hand-edited row, a truncated write) gives no address claim rather than a failed request.
 */
export function addressClaim(stored: string | null): Record<string, string> | null {
  if (stored === null || stored.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const address: Record<string, string> = {};
  for (const member of ADDRESS_MEMBERS) {
    const value = (parsed as Record<string, unknown>)[member];
    if (typeof value === 'string' && value !== '') address[member] = value;
  }
  return Object.keys(address).length === 0 ? null : address;
}

/** Core 5.4: the claims the granted scopes ask for. */
export function scopeClaimNames(scopes: readonly string[]): ScopedClaim[] {
  return (Object.keys(SCOPE_CLAIMS) as ClaimScope[]).filter((scope) => scopes.includes(scope)).flatMap((scope) => SCOPE_CLAIMS[scope]);
}

/**
 * Core 5.3.2, 5.4 and 5.5: `sub` always, then each claim of the granted scopes, and each claim asked for by name
 * (`requested`, the claims request parameter), that has a value.
 */
export function userClaims(user: UserRecord, scopes: readonly string[], requested: readonly ScopedClaim[] = []): UserinfoClaims {
  return { sub: user.subject, ...claimsOf(user, [...scopeClaimNames(scopes), ...requested]) };
}

/** The values of the named claims that the user holds (section 5.3.2: a claim without a value is left out). */
export function claimsOf(user: UserRecord, names: readonly ScopedClaim[]): Record<string, ClaimValue> {
  const claims: Record<string, ClaimValue> = {};
  for (const name of names) {
    const value = CLAIM_VALUES[name](user);
    if (value !== null) claims[name] = value;
  }
  return claims;
}

const STANDARD_CLAIMS: ReadonlySet<string> = new Set(Object.values(SCOPE_CLAIMS).flat());

/** Whether `name` is one of the standard claims a user may hold. */
export const isScopedClaim = (name: string): name is ScopedClaim => STANDARD_CLAIMS.has(name);
