import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import {
  activeAccessToken,
  BASIC_CHALLENGE,
  basic,
  bearer,
  bearerChallenge,
  expectOAuthError,
  introspectRequest,
  missing,
  revokeRequest,
  TEXT,
  tokenRequest,
} from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7662 as the seed (interface.md) and SPEC 3.3 describe it: every row of the seed's tables.

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

describe(`POST /oauth/introspect (RFC 7662) on ${backend}`, () => {
  let server: TestServer;
  let owner: TestClient;
  let other: TestClient;
  let publicClient: TestClient;
  let userId: number;
  let userSubject: string;

  beforeAll(async () => {
    server = await buildTestServer({ config: { optionalScopes: ['write', 'introspect'] } });
    owner = await createClient(server.deps);
    other = await createClient(server.deps);
    publicClient = await createClient(server.deps, { confidential: false });
    ({ id: userId, subject: userSubject } = await createUser(server.deps));
  });
  afterAll(() => server.close());

  const asOwner = () => basic(owner.uid, owner.secret!);
  const asOther = () => basic(other.uid, other.secret!);

  describe('response fields (RFC 7662 section 2.2, seed "Introspection response")', () => {
    it('an active access token of a user gives active, scope, client_id, token_type "Bearer", iat, exp and sub (the user\'s OpenID subject, issue 31), nothing else', async () => {
      const issued = await issueToken(server.deps, { application: owner.application, scopes: ['read', 'write'], resourceOwnerId: userId });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOwner());
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual(activeAccessToken(issued.record, { scope: 'read write', client_id: owner.uid, sub: userSubject }));
    });

    it('iat and exp agree with created_at and expires_in of the token response (RFC 7662 section 2.2)', async () => {
      const issued = await tokenRequest(server.app, { grant_type: 'client_credentials' }, asOwner());
      const { access_token, created_at, expires_in } = issued.json();
      const response = await introspectRequest(server.app, { token: access_token }, asOwner());
      expect(response.json()).toMatchObject({ active: true, iat: created_at, exp: created_at + expires_in });
    });

    it('scope is omitted when the token has no scopes (seed: "when active"; SPEC 8: omitted, not null)', async () => {
      const issued = await issueToken(server.deps, { application: owner.application, scopes: [] });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOwner());
      expect(response.json()).toEqual(activeAccessToken(issued.record, { client_id: owner.uid }));
    });

    it('client_id is omitted for a token without application (seed: "when the token has an application")', async () => {
      const issued = await issueToken(server.deps, { application: null, resourceOwnerId: userId });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOwner());
      expect(response.json()).toEqual(activeAccessToken(issued.record, { scope: 'read', sub: userSubject }));
    });

    it('exp is omitted for a token that never expires (seed: "when the token has an expiry")', async () => {
      const issued = await issueToken(server.deps, { application: owner.application, expiresIn: null });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOwner());
      expect(response.json()).toEqual({
        active: true,
        scope: 'read',
        client_id: owner.uid,
        token_type: 'Bearer',
        iat: seconds(issued.record.createdAt),
      });
    });
  });

  describe('inactive tokens are exactly {"active":false} (RFC 7662 section 2.2)', () => {
    it('an unknown token', async () => {
      const response = await introspectRequest(server.app, { token: 'no-such-token' }, asOwner());
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ active: false });
    });

    it('an expired token: active before exp, inactive from exp on', async () => {
      const issued = await issueToken(server.deps, { application: owner.application, expiresIn: 60 });
      // The test clock also runs with real time: a margin keeps the first request clear of exp.
      server.clock.advance(50);
      expect((await introspectRequest(server.app, { token: issued.accessToken }, asOwner())).json()).toMatchObject({ active: true });
      server.clock.advance(10);
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOwner());
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ active: false });
    });

    it('a revoked token (RFC 7009 then RFC 7662)', async () => {
      const issued = await issueToken(server.deps, { application: owner.application });
      expect((await revokeRequest(server.app, { token: issued.accessToken }, asOwner())).statusCode).toBe(200);
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOwner());
      expect(response.json()).toEqual({ active: false });
    });
  });

  describe('requester authentication: HTTP Basic or Bearer, nothing else (RFC 7662 section 2.1, SPEC 3.3)', () => {
    it('HTTP Basic of the owning client', async () => {
      const issued = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOwner());
      expect(response.json()).toMatchObject({ active: true, client_id: owner.uid });
    });

    it('a Bearer token of the same application (seed default rule 1, sameApplication)', async () => {
      const requester = await issueToken(server.deps, { application: owner.application });
      const issued = await issueToken(server.deps, { application: owner.application, resourceOwnerId: userId });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, bearer(requester.accessToken));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ active: true, client_id: owner.uid, token_type: 'Bearer' });
    });

    it('a public client introspects with a Bearer token of its own application', async () => {
      const requester = await issueToken(server.deps, { application: publicClient.application });
      const issued = await issueToken(server.deps, { application: publicClient.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, bearer(requester.accessToken));
      expect(response.json()).toMatchObject({ active: true, client_id: publicClient.uid });
    });

    it('no credentials at all: 401 invalid_client (RFC 7662 section 2.1, SPEC 8)', async () => {
      const issued = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken });
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      expect(response.headers['www-authenticate']).toBeUndefined();
    });

    it('client credentials in the body are not accepted: 401 invalid_client (seed, Authentication 1)', async () => {
      const issued = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, {
        token: issued.accessToken,
        client_id: owner.uid,
        client_secret: owner.secret!,
      });
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
    });

    it('a public client_id in the body is not accepted: 401 invalid_client (SPEC 8)', async () => {
      const issued = await issueToken(server.deps, { application: publicClient.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken, client_id: publicClient.uid });
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
    });

    it('HTTP Basic of a public client without a secret is not client authentication: 401 invalid_client (SPEC 3.3)', async () => {
      const issued = await issueToken(server.deps, { application: publicClient.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, basic(publicClient.uid, ''));
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
    });

    it('a wrong secret: 401 invalid_client with a Basic challenge (RFC 6749 section 5.2)', async () => {
      const issued = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, basic(owner.uid, 'wrong-secret'));
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
    });

    it('an unknown client: 401 invalid_client', async () => {
      const response = await introspectRequest(server.app, { token: 'x' }, basic('no-such-client', 'secret'));
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
    });

    it('a missing token parameter: 400 invalid_request (RFC 7662 section 2.1: token is REQUIRED)', async () => {
      const response = await introspectRequest(server.app, {}, asOwner());
      expectOAuthError(response, 400, 'invalid_request', missing('token'));
    });

    const requesters: Array<[string, () => Promise<string>, string]> = [
      ['unknown', async () => 'no-such-bearer', TEXT.tokenInvalid],
      [
        'expired',
        async () => (await issueToken(server.deps, { application: owner.application, expiresIn: 1 })).accessToken,
        TEXT.tokenExpired,
      ],
      [
        'revoked',
        async () => {
          const issued = await issueToken(server.deps, { application: owner.application });
          await server.deps.stores.accessTokens.revoke(issued.record.id, server.deps.now());
          return issued.accessToken;
        },
        TEXT.tokenRevoked,
      ],
    ];
    it.each(requesters)(
      'an %s Bearer requester: 401 invalid_token naming the reason (RFC 6750 section 3.1)',
      async (_label, requesterToken, description) => {
        const requester = await requesterToken();
        server.clock.advance(1);
        const issued = await issueToken(server.deps, { application: owner.application });
        const response = await introspectRequest(server.app, { token: issued.accessToken }, bearer(requester));
        expectOAuthError(response, 401, 'invalid_token', description);
        expect(response.headers['www-authenticate']).toBe(bearerChallenge(description));
      },
    );

    it('a Bearer token introspecting itself, or its own refresh token (one token record): 401 invalid_token (reference 10.1)', async () => {
      const requester = await issueToken(server.deps, { application: owner.application, withRefreshToken: true });
      for (const token of [requester.accessToken, requester.refreshToken!]) {
        const response = await introspectRequest(server.app, { token }, bearer(requester.accessToken));
        expectOAuthError(response, 401, 'invalid_token', TEXT.tokenInvalid);
        expect(response.headers['www-authenticate']).toBe(bearerChallenge(TEXT.tokenInvalid));
      }
    });
  });

  describe('who may introspect what: the default rules (seed "Default decision")', () => {
    it('tokenApplication: another client is rejected with 200 {"active":false} (seed, Errors)', async () => {
      const issued = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOther());
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ active: false });
    });

    it('publicToken: any authenticated client may introspect a token without application', async () => {
      const issued = await issueToken(server.deps, { application: null });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, asOther());
      expect(response.json()).toEqual(activeAccessToken(issued.record, { scope: 'read' }));
    });

    it('sameApplication: a Bearer token of another application is rejected with 401 invalid_token (seed, Errors)', async () => {
      const requester = await issueToken(server.deps, { application: other.application });
      const issued = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, bearer(requester.accessToken));
      expectOAuthError(response, 401, 'invalid_token', TEXT.tokenInvalid);
      expect(response.headers['www-authenticate']).toBe(bearerChallenge(TEXT.tokenInvalid));
    });

    it('sameApplication: an unknown token asked with a Bearer token is compared with nothing: 401 (seed, SPEC 3.3)', async () => {
      const requester = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, { token: 'no-such-token' }, bearer(requester.accessToken));
      expectOAuthError(response, 401, 'invalid_token', TEXT.tokenInvalid);
    });

    it('sameApplication: a Bearer requester sees an expired token of its application as {"active":false}', async () => {
      const issued = await issueToken(server.deps, { application: owner.application, expiresIn: 10 });
      server.clock.advance(10);
      const requester = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, bearer(requester.accessToken));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ active: false });
    });
  });

  describe('token_type_hint (RFC 7662 section 2.1: a hint, never a filter; SPEC 3.3)', () => {
    it.each(['refresh_token', 'access_token', 'mac_token', ''])('an access token is found with token_type_hint=%j', async (hint) => {
      const issued = await issueToken(server.deps, { application: owner.application });
      const response = await introspectRequest(server.app, { token: issued.accessToken, token_type_hint: hint }, asOwner());
      expect(response.json()).toMatchObject({ active: true, client_id: owner.uid });
    });

    it.each(['access_token', 'refresh_token', 'unknown'])('a refresh token is found with token_type_hint=%j', async (hint) => {
      const issued = await issueToken(server.deps, { application: owner.application, withRefreshToken: true });
      const response = await introspectRequest(server.app, { token: issued.refreshToken!, token_type_hint: hint }, asOwner());
      expect(response.json()).toMatchObject({ active: true, client_id: owner.uid });
    });
  });

  describe('refresh tokens (SPEC 3.3: active while it can still be used)', () => {
    it('an unused refresh token is active with the fields of its token row, token_type "refresh_token", without exp when refresh tokens do not expire', async () => {
      const issued = await issueToken(server.deps, {
        application: owner.application,
        resourceOwnerId: userId,
        withRefreshToken: true,
        grantType: 'authorization_code',
      });
      const response = await introspectRequest(server.app, { token: issued.refreshToken! }, asOwner());
      expect(response.json()).toEqual({
        active: true,
        scope: 'read',
        client_id: owner.uid,
        token_type: 'refresh_token',
        iat: seconds(issued.record.createdAt),
        sub: userSubject,
      });
    });

    it('a refresh token stays active after its access token expired, and is inactive once rotated', async () => {
      const issued = await issueToken(server.deps, { application: owner.application, resourceOwnerId: userId, withRefreshToken: true });
      server.clock.advance(7200);
      expect((await introspectRequest(server.app, { token: issued.accessToken }, asOwner())).json()).toEqual({ active: false });
      expect((await introspectRequest(server.app, { token: issued.refreshToken! }, asOwner())).json()).toMatchObject({ active: true });

      const refreshed = await tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: issued.refreshToken! }, asOwner());
      expect(refreshed.statusCode).toBe(200);
      expect((await introspectRequest(server.app, { token: issued.refreshToken! }, asOwner())).json()).toEqual({ active: false });
      expect((await introspectRequest(server.app, { token: refreshed.json().refresh_token }, asOwner())).json()).toMatchObject({
        active: true,
      });
    });

    it('a revoked refresh token is inactive', async () => {
      const issued = await issueToken(server.deps, { application: owner.application, withRefreshToken: true });
      await revokeRequest(server.app, { token: issued.refreshToken! }, asOwner());
      expect((await introspectRequest(server.app, { token: issued.refreshToken! }, asOwner())).json()).toEqual({ active: false });
    });
  });
});
