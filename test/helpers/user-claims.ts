import type { UserClaims } from '../../src/oauth/store.js';

// Alice, the user with every standard claim of OpenID Connect Core 5.1 that the unit, integration and conformance
// tests sign in as or read claims of: her claims as stored (ALICE) and as UserInfo spells her profile ones.

/** A user without any claim: every column null, the verified flags false. */
export const NO_CLAIMS: UserClaims = {
  name: null,
  givenName: null,
  familyName: null,
  middleName: null,
  nickname: null,
  preferredUsername: null,
  profile: null,
  picture: null,
  website: null,
  email: null,
  emailVerified: false,
  gender: null,
  birthdate: null,
  zoneinfo: null,
  locale: null,
  phoneNumber: null,
  phoneNumberVerified: false,
  address: null,
};

/** Every claim of Core 5.1 set, as stored (the address as its JSON text). */
export const ALICE = {
  name: 'Alice Liddell',
  givenName: 'Alice',
  familyName: 'Liddell',
  middleName: 'Pleasance',
  nickname: 'Al',
  preferredUsername: 'alice.l',
  profile: 'https://example.com/alice',
  picture: 'https://example.com/alice.png',
  website: 'https://alice.example',
  email: 'alice@example.com',
  emailVerified: true,
  gender: 'female',
  birthdate: '1852-05-04',
  zoneinfo: 'Europe/London',
  locale: 'en-GB',
  phoneNumber: '+44 1865 000000',
  phoneNumberVerified: false,
  address: JSON.stringify({ street_address: '1 Christ Church', locality: 'Oxford', postal_code: 'OX1 1DP', country: 'UK' }),
} satisfies UserClaims;

/** ALICE's profile-scope claims as UserInfo names them (Core 5.4), without updated_at (it is when they were stored). */
export const ALICE_PROFILE_CLAIMS = {
  name: 'Alice Liddell',
  given_name: 'Alice',
  family_name: 'Liddell',
  middle_name: 'Pleasance',
  nickname: 'Al',
  preferred_username: 'alice.l',
  profile: 'https://example.com/alice',
  picture: 'https://example.com/alice.png',
  website: 'https://alice.example',
  gender: 'female',
  birthdate: '1852-05-04',
  zoneinfo: 'Europe/London',
  locale: 'en-GB',
};
