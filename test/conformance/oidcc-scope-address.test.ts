import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClaimsOfScopes, openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-scope-address: scope=openid address (Core 5.4); the address claims come from UserInfo, and only they.

describe('oidcc-scope-address', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('UserInfo returns the address claims of Core 5.4 for scope=openid address', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid address' });
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'address'].sort());
    const info = await userInfoClaims(op, tokens.access_token, claims.sub);
    expectClaimsOfScopes(info, ['address']);
    expect(info.address).toEqual({ street_address: '1 Christ Church', locality: 'Oxford', postal_code: 'OX1 1DP', country: 'UK' });
  });
});
