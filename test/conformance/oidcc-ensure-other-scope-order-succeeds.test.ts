import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-ensure-other-scope-order-succeeds: scope is a space-separated set (RFC 6749 section 3.3), so
// "email openid" is the same request as "openid email": openid need not come first.

describe('oidcc-ensure-other-scope-order-succeeds', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('scope=openid email and scope=email openid both get an ID token and the email claims', async () => {
    for (const scope of ['openid email', 'email openid']) {
      const { tokens, claims } = await suiteCodeFlow(op, { scope });
      expect(await userInfoClaims(op, tokens.access_token, claims.sub), scope).toMatchObject({ email: 'alice@example.com' });
    }
  });
});
