import { describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { mergedUpstreamClaims, type MappedClaims } from '../../src/oauth/federation/upstream-claims.js';
import { upstreamProfile } from '../../src/oauth/federation/upstream-profile.js';

// An upstream's claims from its ID token and its UserInfo: email_verified speaks of the email of the same answer.
describe('mergedUpstreamClaims', () => {
  const entry = { claims: {} } as IdentityProviderConfig;

  it("takes the ID token's claims over UserInfo's", () => {
    expect(mergedUpstreamClaims(entry, { sub: 'a', name: 'From UserInfo', picture: 'p' }, { sub: 'a', name: 'From ID token' })).toEqual({
      sub: 'a',
      name: 'From ID token',
      picture: 'p',
    });
  });

  it("never pairs one answer's email with the other's email_verified", () => {
    // The ID token names an address without vouching for it; UserInfo vouches for another address.
    expect(
      mergedUpstreamClaims(entry, { sub: 'a', email: 'other@up.test', email_verified: true }, { sub: 'a', email: 'alice@example.com' }),
    ).toEqual({ sub: 'a', email: 'alice@example.com' });
    // The ID token vouches without naming an address: UserInfo's address comes with UserInfo's word only.
    expect(
      mergedUpstreamClaims(entry, { sub: 'a', email: 'alice@example.com', email_verified: false }, { sub: 'a', email_verified: true }),
    ).toEqual({ sub: 'a', email: 'alice@example.com', email_verified: false });
    expect(mergedUpstreamClaims(entry, { sub: 'a', email: 'alice@example.com' }, { sub: 'a', email_verified: true })).toEqual({
      sub: 'a',
      email: 'alice@example.com',
    });
    // A pair from the ID token stays whole.
    expect(
      mergedUpstreamClaims(entry, { email: 'x@up.test', email_verified: false }, { sub: 'a', email: 'a@up.test', email_verified: true }),
    ).toMatchObject({ email: 'a@up.test', email_verified: true });
  });

  it("follows the provider's claim mapping", () => {
    const mapped = { claims: { email: 'mail', email_verified: 'mail_verified' } } as unknown as IdentityProviderConfig;
    expect(mergedUpstreamClaims(mapped, { mail: 'b@up.test', mail_verified: true }, { sub: 'a', mail: 'a@up.test' })).toEqual({
      sub: 'a',
      mail: 'a@up.test',
    });
  });
});

// The profile written to the local user: a verified flag only beside the value it vouches for (a black-box probe: a
// refused email's "true" verified the address stored before, which linking by verified email then trusted).
describe('upstreamProfile', () => {
  const claims = (values: Record<string, unknown>) => ({ sub: 'a', email_verified: false, ...values }) as MappedClaims;

  it('keeps an email with its own email_verified', () => {
    expect(upstreamProfile(claims({ email: 'alice@example.com', email_verified: true }))).toMatchObject({
      email: 'alice@example.com',
      emailVerified: true,
    });
  });

  it('writes no email_verified for an email it refused, or for an answer without an email', () => {
    for (const email of ['not-an-address', 'a\u202Eb@example.com']) {
      const profile = upstreamProfile(claims({ email, email_verified: true }));
      expect(profile).not.toHaveProperty('email');
      expect(profile).not.toHaveProperty('emailVerified');
    }
    expect(upstreamProfile(claims({ name: 'Alice' }))).toEqual({ name: 'Alice' });
  });

  it('likewise phone_number_verified only beside a phone number', () => {
    expect(upstreamProfile(claims({ phone_number_verified: true }))).not.toHaveProperty('phoneNumberVerified');
    expect(upstreamProfile(claims({ phone_number: '+1 555 0100', phone_number_verified: true }))).toMatchObject({
      phoneNumber: '+1 555 0100',
      phoneNumberVerified: true,
    });
  });
});
