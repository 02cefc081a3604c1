import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-userinfo-get: UserInfo (Core 5.3.1) with GET and the access token in the Authorization header; the sub
// must be the ID token's (Core 5.3.2).

describe('oidcc-userinfo-get', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('GET with a Bearer header returns JSON claims whose sub is the ID token sub', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid email' });
    const info = await userInfoClaims(op, tokens.access_token, claims.sub);
    expect(info).toEqual({ sub: claims.sub, email: 'alice@example.com', email_verified: true });
  });
});
