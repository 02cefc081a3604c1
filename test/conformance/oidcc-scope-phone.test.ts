import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClaimsOfScopes, openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-scope-phone: scope=openid phone (Core 5.4); the phone claims come from UserInfo, and only they.

describe('oidcc-scope-phone', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('UserInfo returns the phone claims of Core 5.4 for scope=openid phone', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid phone' });
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'phone'].sort());
    const info = await userInfoClaims(op, tokens.access_token, claims.sub);
    expectClaimsOfScopes(info, ['phone']);
    expect(info).toMatchObject({ phone_number: '+44 1865 000000', phone_number_verified: false });
  });
});
