import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK, openIdProvider, suiteCodeFlow, tokenEndpoint, userInfo, type OpenIdProvider } from './support.js';

// oidcc-codereuse-30seconds: an authorization code is single-use (Core 3.1.3.2, RFC 6749 section 4.1.2). With
// the server clock moved 30 seconds (the code is still unexpired), the second exchange of the same code is
// invalid_grant, and the tokens the first exchange issued are revoked (RFC 6749 section 4.1.2's SHOULD), so the
// first access token no longer works at UserInfo.

describe('oidcc-codereuse-30seconds', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('30 seconds later, a second exchange of the code is invalid_grant and revokes the first access token', async () => {
    const { code, tokens } = await suiteCodeFlow(op);
    op.server.clock.advance(30);
    const reuse = await tokenEndpoint(op, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK });
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().error).toBe('invalid_grant');
    const revoked = await userInfo(op, tokens.access_token);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});
