import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdProvider, suiteCodeFlow, tokenEndpoint, userInfoClaims, validIdToken, type OpenIdProvider } from './support.js';

// oidcc-refresh-token: a refresh (Core 12) returns a new access token and an ID token whose iss, sub, aud and
// auth_time are the original's, with a newer iat and no nonce requirement (Core 12.2); the new access token works
// at UserInfo; a refresh token presented by another client is refused (RFC 6749 section 6).

describe('oidcc-refresh-token', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('refresh_token returns tokens and an ID token consistent with the first one', async () => {
    const first = await suiteCodeFlow(op);
    expect(first.tokens.refresh_token).toEqual(expect.any(String));
    op.server.clock.advance(5);
    const response = await tokenEndpoint(op, { grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token! });
    expect(response.statusCode, response.body).toBe(200);
    const refreshed = response.json();
    expect(refreshed.access_token).not.toBe(first.tokens.access_token);
    const claims = await validIdToken(op, refreshed.id_token, op.client, { accessToken: refreshed.access_token });
    expect(claims).toMatchObject({
      iss: first.claims.iss,
      sub: first.claims.sub,
      aud: first.claims.aud,
      auth_time: first.claims.auth_time,
    });
    expect(claims.iat).toBeGreaterThan(first.claims.iat as number);
    await userInfoClaims(op, refreshed.access_token, claims.sub);
  });

  it('a refresh token is refused to a client it was not issued to (invalid_grant)', async () => {
    const { tokens } = await suiteCodeFlow(op);
    const other = await op.newClient();
    const response = await tokenEndpoint(op, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, { client: other });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_grant');
  });
});
