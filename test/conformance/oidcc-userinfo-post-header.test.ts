import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover, openIdProvider, pathOf, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-userinfo-post-header: UserInfo by POST (Core 5.3.1 allows both methods) with the access token in the
// Authorization header (RFC 6750 section 2.1) and an empty body.

describe('oidcc-userinfo-post-header', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('POST with a Bearer header returns the claims for the ID token sub', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid email' });
    const response = await op.server.app.inject({
      method: 'POST',
      url: pathOf((await discover(op.server)).userinfo_endpoint),
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ sub: claims.sub, email: 'alice@example.com', email_verified: true });
  });
});
