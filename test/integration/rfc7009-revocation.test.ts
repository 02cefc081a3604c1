import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import {
  BASIC_CHALLENGE,
  basic,
  expectNoStore,
  expectOAuthError,
  type Headers,
  isActive,
  missing,
  revokeRequest,
  TEXT,
  tokenRequest,
} from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7009 token revocation as SPEC 3.2 and 8 define it, with reference 9 and 21.12 for what they leave open.

describe(`POST /oauth/revoke (RFC 7009) on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;
  let other: TestClient;
  let publicClient: TestClient;
  let asClient: Headers;
  let userId: number;

  beforeAll(async () => {
    server = await buildTestServer();
    client = await createClient(server.deps);
    other = await createClient(server.deps);
    publicClient = await createClient(server.deps, { confidential: false });
    asClient = basic(client.uid, client.secret!);
    userId = (await createUser(server.deps)).id;
  });
  afterAll(() => server.close());

  const pairOf = (owner: TestClient | null) =>
    issueToken(server.deps, { application: owner?.application ?? null, resourceOwnerId: userId, withRefreshToken: true });
  const refresh = (refreshToken: string, headers: Headers = asClient) =>
    tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: refreshToken }, headers);

  it('a client revokes its own access token: 200 {} and the token is inactive (RFC 7009 section 2.2)', async () => {
    const { accessToken } = await pairOf(client);
    const response = await revokeRequest(server.app, { token: accessToken }, asClient);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    expectNoStore(response);
    expect(await isActive(server.app, accessToken, asClient)).toBe(false);
  });

  it('client_secret_post authenticates too (RFC 7009 section 2.1)', async () => {
    const { accessToken } = await pairOf(client);
    const response = await revokeRequest(server.app, { token: accessToken, client_id: client.uid, client_secret: client.secret! });
    expect(response.statusCode).toBe(200);
    expect(await isActive(server.app, accessToken, asClient)).toBe(false);
  });

  it('revoking the refresh token revokes its access token (RFC 7009 section 2.1)', async () => {
    const { accessToken, refreshToken } = await pairOf(client);
    expect((await revokeRequest(server.app, { token: refreshToken!, token_type_hint: 'refresh_token' }, asClient)).statusCode).toBe(200);
    expect(await isActive(server.app, accessToken, asClient)).toBe(false);
    expectOAuthError(await refresh(refreshToken!), 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('revoking the access token revokes its refresh token (SPEC 3.2)', async () => {
    const { accessToken, refreshToken } = await pairOf(client);
    expect((await revokeRequest(server.app, { token: accessToken }, asClient)).statusCode).toBe(200);
    expectOAuthError(await refresh(refreshToken!), 400, 'invalid_grant', TEXT.invalidGrant);
    expect(await isActive(server.app, refreshToken!, asClient)).toBe(false);
  });

  it('revoking a rotated refresh token revokes its successors (RFC 7009 section 2.1: tokens of the same grant)', async () => {
    const { refreshToken } = await pairOf(client);
    const next = (await refresh(refreshToken!)).json();
    expect((await revokeRequest(server.app, { token: refreshToken! }, asClient)).statusCode).toBe(200);
    expect(await isActive(server.app, next.access_token, asClient)).toBe(false);
  });

  it.each([
    ['a refresh token with token_type_hint=access_token', 'refreshToken', 'access_token'],
    ['an access token with token_type_hint=refresh_token', 'accessToken', 'refresh_token'],
    ['an access token with an unknown token_type_hint', 'accessToken', 'mac'],
  ] as const)('a wrong hint still finds the token: %s (RFC 7009 section 2.1, SPEC 3.2)', async (_label, which, hint) => {
    const pair = await pairOf(client);
    const response = await revokeRequest(server.app, { token: pair[which]!, token_type_hint: hint }, asClient);
    expect(response.statusCode).toBe(200);
    expect(await isActive(server.app, pair.accessToken, asClient)).toBe(false);
  });

  it("another client's token: 403 unauthorized_client, and the token stays active (RFC 7009 section 2.1)", async () => {
    const { accessToken, refreshToken } = await pairOf(client);
    for (const token of [accessToken, refreshToken!]) {
      const response = await revokeRequest(server.app, { token }, basic(other.uid, other.secret!));
      expectOAuthError(response, 403, 'unauthorized_client', TEXT.revokeNotAuthorized);
    }
    expect(await isActive(server.app, accessToken, asClient)).toBe(true);
  });

  it('an unknown token: 200 {} (RFC 7009 section 2.2)', async () => {
    const response = await revokeRequest(server.app, { token: 'I_AM_AN_INVALID_TOKEN' }, asClient);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
  });

  it('an already revoked token: 200 {}', async () => {
    const { accessToken } = await pairOf(client);
    await revokeRequest(server.app, { token: accessToken }, asClient);
    const again = await revokeRequest(server.app, { token: accessToken }, asClient);
    expect({ status: again.statusCode, body: again.json() }).toEqual({ status: 200, body: {} });
  });

  it('a missing token parameter: 400 invalid_request (RFC 7009 section 2.1: token is REQUIRED)', async () => {
    expectOAuthError(await revokeRequest(server.app, {}, asClient), 400, 'invalid_request', missing('token'));
  });

  describe('client authentication (RFC 7009 section 2.1; SPEC 8: 401 invalid_client, not 403)', () => {
    it('a wrong secret through Basic: 401 invalid_client with a Basic challenge; nothing is revoked', async () => {
      const { accessToken } = await pairOf(client);
      const response = await revokeRequest(server.app, { token: accessToken }, basic(client.uid, 'poop'));
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
      expect(await isActive(server.app, accessToken, asClient)).toBe(true);
    });

    it.each([
      ['no credentials', () => ({})],
      ['a confidential client_id without its secret', () => ({ client_id: client.uid })],
      ['an unknown client_id', () => ({ client_id: 'no-such-client' })],
      ['a wrong client_secret', () => ({ client_id: client.uid, client_secret: 'wrong' })],
    ])('%s: 401 invalid_client; nothing is revoked', async (_label, credentials) => {
      const { accessToken } = await pairOf(client);
      const response = await revokeRequest(server.app, { token: accessToken, ...credentials() });
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      expect(await isActive(server.app, accessToken, asClient)).toBe(true);
    });

    it('a secret sent twice: 400 invalid_request (RFC 6749 section 2.3); nothing is revoked', async () => {
      const { accessToken } = await pairOf(client);
      const response = await revokeRequest(server.app, { token: accessToken, client_secret: client.secret! }, asClient);
      expectOAuthError(response, 400, 'invalid_request', TEXT.multipleMethods);
      expect(await isActive(server.app, accessToken, asClient)).toBe(true);
    });
  });

  describe('public clients identify themselves with client_id (RFC 7009 section 2.1)', () => {
    it('a public client revokes its own access and refresh tokens', async () => {
      for (const which of ['accessToken', 'refreshToken'] as const) {
        const pair = await pairOf(publicClient);
        const response = await revokeRequest(server.app, { token: pair[which]!, client_id: publicClient.uid });
        expect(response.statusCode).toBe(200);
        expect(await isActive(server.app, pair.accessToken, asClient)).toBe(false);
      }
    });

    it("a public client may not revoke a confidential client's token: 403", async () => {
      const { accessToken } = await pairOf(client);
      const response = await revokeRequest(server.app, { token: accessToken, client_id: publicClient.uid });
      expectOAuthError(response, 403, 'unauthorized_client', TEXT.revokeNotAuthorized);
      expect(await isActive(server.app, accessToken, asClient)).toBe(true);
    });

    it("a public client may not revoke another public client's token: 403", async () => {
      const otherPublic = await createClient(server.deps, { confidential: false });
      const { accessToken } = await pairOf(publicClient);
      const response = await revokeRequest(server.app, { token: accessToken, client_id: otherPublic.uid });
      expectOAuthError(response, 403, 'unauthorized_client', TEXT.revokeNotAuthorized);
    });

    it('a token without application may be revoked by any authenticated client (reference 9 step 4)', async () => {
      const { accessToken } = await pairOf(null);
      expect((await revokeRequest(server.app, { token: accessToken, client_id: publicClient.uid })).statusCode).toBe(200);
      expect(await isActive(server.app, accessToken, asClient)).toBe(false);
    });
  });
});
