import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectCodeReuseRefused, openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-codereuse: an authorization code is single-use (Core 3.1.3.2, RFC 6749 section 4.1.2). The second
// exchange of the same code is invalid_grant, and the tokens the first exchange issued are revoked (RFC 6749
// section 4.1.2's SHOULD), so the first access token no longer works at UserInfo.

describe('oidcc-codereuse', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('a second exchange of the code is invalid_grant and revokes the first access token', async () => {
    const { code, tokens } = await suiteCodeFlow(op);
    await expectCodeReuseRefused(op, code, tokens.access_token);
  });
});
