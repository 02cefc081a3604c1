import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClaimsOfScopes, openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-scope-all: scope=openid profile email address phone (Core 5.4) in one request; UserInfo returns the
// claims of all four scopes.

describe('oidcc-scope-all', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('UserInfo returns every claim of profile, email, address and phone', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid profile email address phone' });
    expect(tokens.scope?.split(' ').sort()).toEqual(['address', 'email', 'openid', 'phone', 'profile']);
    expectClaimsOfScopes(await userInfoClaims(op, tokens.access_token, claims.sub), ['profile', 'email', 'address', 'phone']);
  });
});
