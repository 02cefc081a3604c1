import { BOOLEAN_CLAIMS, resolveProfile, STRING_CLAIMS, type ProfileInput } from '../users/user-profile.js';
import type { MappedClaims } from './upstream-claims.js';

// Issue 37 item 3: the claims an upstream gives become the local user's (at creation, and again at each sign-in), so
// our ID tokens and UserInfo say what it says. A value our profile rules refuse (an email that is no address, a
// picture that is no https URL) is left out rather than failing the sign-in. Its callers (upstream-user.ts) write the
// profile as the provider's word (users.email_verified_by its id): a verified email here on an upstream's word counts
// for linking by that provider only.

/** The profile input of the upstream's claims (our names), without the values the profile rules refuse. */
export function upstreamProfile(claims: MappedClaims): ProfileInput {
  const profile: Record<string, unknown> = {};
  const fieldOfClaim = new Map<string, string>();
  for (const { field, claim } of STRING_CLAIMS) {
    if (typeof claims[claim] !== 'string') continue;
    profile[field] = claims[claim];
    fieldOfClaim.set(claim, field);
  }
  for (const { field, claim } of BOOLEAN_CLAIMS) if (typeof claims[claim] === 'boolean') profile[field] = claims[claim];
  // An email the upstream does not vouch for is stored unverified: never a verified address here on its word alone.
  if (profile.email !== undefined) profile.emailVerified = claims.email_verified === true;
  const { errors } = resolveProfile(null, profile as ProfileInput);
  for (const claim of Object.keys(errors)) {
    const field = fieldOfClaim.get(claim);
    if (field !== undefined) delete profile[field];
  }
  // A flag vouches for the value of the same answer, and is written only beside it: a refused or absent email's "true"
  // verified the address stored before (an unverified one, which linking by verified email then took for the user's),
  // and an answer without an email unset the admin's verification of the stored one.
  for (const [flag, field] of VOUCHED_BY) if (profile[field] === undefined) delete profile[flag];
  return profile as ProfileInput;
}

const VOUCHED_BY = [
  ['emailVerified', 'email'],
  ['phoneNumberVerified', 'phoneNumber'],
] as const;
