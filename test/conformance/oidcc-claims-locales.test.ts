import { afterAll, beforeAll, describe, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-claims-locales: claims_locales (Core 5.2) is a preference; the OP has one language per claim and returns
// it. The request and UserInfo must not fail.

describe('oidcc-claims-locales', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('claims_locales=se completes the code flow and UserInfo answers', async () => {
    const { tokens, claims } = await suiteCodeFlow(op, { scope: 'openid profile', claims_locales: 'se' });
    await userInfoClaims(op, tokens.access_token, claims.sub);
  });
});
