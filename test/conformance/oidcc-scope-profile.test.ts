import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClaimsOfScopes, openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-scope-profile: scope=openid profile (Core 5.4); the profile claims come from UserInfo, and only they.

describe('oidcc-scope-profile', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('UserInfo returns the profile claims of Core 5.4 for scope=openid profile', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid profile' });
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'profile'].sort());
    const info = await userInfoClaims(op, tokens.access_token, claims.sub);
    expectClaimsOfScopes(info, ['profile']);
    expect(info).toMatchObject({ name: 'Alice Liddell', given_name: 'Alice', family_name: 'Liddell', birthdate: '1852-05-04' });
    expect(info.updated_at).toEqual(expect.any(Number));
  });
});
