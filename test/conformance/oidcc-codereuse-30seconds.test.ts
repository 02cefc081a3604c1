import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectCodeReuseRefused, openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

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
    await expectCodeReuseRefused(op, code, tokens.access_token);
  });
});
