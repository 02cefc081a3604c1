import type { ScopedClaim } from '../../../oauth/openid/standard-claims.js';

// The standard claims (OpenID Connect Core 5.1) said in words, for the consent screen's line about the claims a
// client asks for by name beyond its scopes (Core 5.5): what the user agrees to let it see.
const CLAIM_WORDS: Record<ScopedClaim, string> = {
  name: 'name',
  family_name: 'family name',
  given_name: 'given name',
  middle_name: 'middle name',
  nickname: 'nickname',
  preferred_username: 'preferred username',
  profile: 'profile page',
  picture: 'picture',
  website: 'website',
  gender: 'gender',
  birthdate: 'birthdate',
  zoneinfo: 'time zone',
  locale: 'language and region',
  updated_at: 'when your profile last changed',
  email: 'email address',
  email_verified: 'whether your email address is verified',
  address: 'postal address',
  phone_number: 'phone number',
  phone_number_verified: 'whether your phone number is verified',
};

/** "See your name, email address and phone number"; null when no claim is asked for beyond the scopes. */
export function claimsDescription(claims: readonly ScopedClaim[]): string | null {
  const words = claims.map((claim) => CLAIM_WORDS[claim]);
  if (words.length === 0) return null;
  const listed = words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
  return `See your ${listed}`;
}
