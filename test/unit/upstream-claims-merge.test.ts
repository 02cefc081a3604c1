import { describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { mergedUpstreamClaims } from '../../src/oauth/federation/upstream-claims.js';

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
