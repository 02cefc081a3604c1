import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, userInfoClaims, type OpenIdProvider } from './support.js';

// oidcc-server: the happy path. The code flow with scope=openid, a state and a nonce; the token response carries
// an ID token that passes every check of Core 3.1.3.7; UserInfo answers for the same sub.

describe('oidcc-server', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('the code flow returns a valid ID token (Core 3.1.3.3, 3.1.3.7) and UserInfo answers for its sub', async () => {
    const { tokens, claims } = await suiteCodeFlow(op);
    expect(claims.auth_time).toEqual(expect.any(Number));
    await userInfoClaims(op, tokens.access_token, claims.sub);
  });
});
