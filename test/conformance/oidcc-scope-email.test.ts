import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClaimsOfScopes, openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-scope-email: scope=openid email (Core 5.4); the email claims come from UserInfo, and only they.

describe('oidcc-scope-email', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('UserInfo returns the email claims of Core 5.4 for scope=openid email', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid email' });
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'email'].sort());
    const info = await userInfoClaims(op, tokens.access_token, claims.sub);
    expectClaimsOfScopes(info, ['email']);
    expect(info).toMatchObject({ email: 'alice@example.com', email_verified: true });
  });
});
