import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, FORM } from '../helpers/test-server.js';
import { discover, openIdProvider, pathOf, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-userinfo-post-body: UserInfo by POST with the access token as the form-encoded body parameter
// access_token (RFC 6750 section 2.2), no Authorization header.

describe('oidcc-userinfo-post-body', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('POST with access_token in the form body returns the claims for the ID token sub', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid email' });
    const response = await op.server.app.inject({
      method: 'POST',
      url: pathOf((await discover(op.server)).userinfo_endpoint),
      headers: FORM,
      payload: form({ access_token: tokens.access_token }),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ sub: claims.sub, email: 'alice@example.com', email_verified: true });
  });
});
