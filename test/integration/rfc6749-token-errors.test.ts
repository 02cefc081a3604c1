import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCode, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import {
  BASIC_CHALLENGE,
  basic,
  expectNoStore,
  expectOAuthError,
  type Headers,
  missing,
  type Params,
  TEXT,
  tokenRequest,
} from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 6749 section 5.2 error responses of POST /oauth/token: every row of reference 5.8 with SPEC 8's
// changes, the headers of SPEC 3, and the parameter rules of SPEC 3 (form body only, no repeats).

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe(`POST /oauth/token errors (RFC 6749 section 5.2, reference 5.8) on ${backend}`, () => {
  let server: TestServer;
  let noRefresh: TestServer;
  let client: TestClient;
  let other: TestClient;
  let publicClient: TestClient;
  let user: { id: number; username: string; password: string };

  beforeAll(async () => {
    // Hundreds of failed client authentications from one address: the lockout is tested in api-rate-limits.test.ts.
    server = await buildTestServer({
      config: { grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', 'password'], rateLimit: { enabled: false } },
    });
    noRefresh = await buildTestServer({
      testDatabase: server.testDatabase,
      config: { grantFlows: ['authorization_code', 'client_credentials'], rateLimit: { enabled: false } },
    });
    client = await createClient(server.deps);
    other = await createClient(server.deps);
    publicClient = await createClient(server.deps, { confidential: false });
    user = await createUser(server.deps);
  });
  afterAll(async () => {
    await noRefresh.close();
    await server.close();
  });

  const asClient = () => basic(client.uid, client.secret!);
  const code = (options: { challenge?: boolean; application?: TestClient } = {}) =>
    createCode(server.deps, {
      application: (options.application ?? client).application,
      resourceOwnerId: user.id,
      ...(options.challenge && { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256' }),
    });
  const refreshToken = async (owner: TestClient = client) =>
    (await issueToken(server.deps, { application: owner.application, resourceOwnerId: user.id, withRefreshToken: true })).refreshToken!;

  type Case = [string, () => Promise<{ params: Params; headers?: Headers }>, number, string, string];
  const cases: Case[] = [
    ['no grant_type', async () => ({ params: {}, headers: asClient() }), 400, 'invalid_request', missing('grant_type')],
    [
      'a blank grant_type',
      async () => ({ params: { grant_type: '' }, headers: asClient() }),
      400,
      'invalid_request',
      missing('grant_type'),
    ],
    [
      'an unknown grant_type',
      async () => ({ params: { grant_type: 'nothing' }, headers: asClient() }),
      400,
      'unsupported_grant_type',
      TEXT.unsupportedGrantType,
    ],
    [
      'grant_type=implicit (never a token request)',
      async () => ({ params: { grant_type: 'implicit' }, headers: asClient() }),
      400,
      'unsupported_grant_type',
      TEXT.unsupportedGrantType,
    ],
    [
      'an unsupported grant_type with bad credentials (grant type is checked first, reference 5.1)',
      async () => ({ params: { grant_type: 'nothing' }, headers: basic(client.uid, 'wrong') }),
      400,
      'unsupported_grant_type',
      TEXT.unsupportedGrantType,
    ],
    [
      'a secret sent twice, Basic and body (RFC 6749 section 2.3)',
      async () => ({ params: { grant_type: 'client_credentials', client_secret: client.secret! }, headers: asClient() }),
      400,
      'invalid_request',
      TEXT.multipleMethods,
    ],
    [
      'Basic credentials and a different body client_id (SPEC 8)',
      async () => ({ params: { grant_type: 'client_credentials', client_id: other.uid }, headers: asClient() }),
      400,
      'invalid_request',
      'The client_id in the body names another client than the Authorization header.',
    ],
    [
      'authorization_code without code',
      async () => ({ params: { grant_type: 'authorization_code', redirect_uri: 'https://app.example.com/callback' }, headers: asClient() }),
      400,
      'invalid_request',
      missing('code'),
    ],
    [
      'authorization_code without redirect_uri',
      async () => ({ params: { grant_type: 'authorization_code', code: (await code()).code }, headers: asClient() }),
      400,
      'invalid_request',
      missing('redirect_uri'),
    ],
    [
      'authorization_code without the code_verifier its challenge needs (RFC 7636 section 4.5)',
      async () => {
        const grant = await code({ challenge: true });
        return { params: { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri }, headers: asClient() };
      },
      400,
      'invalid_request',
      missing('code_verifier'),
    ],
    [
      'client_credentials without credentials',
      async () => ({ params: { grant_type: 'client_credentials' } }),
      401,
      'invalid_client',
      TEXT.invalidClient,
    ],
    [
      'client_credentials with an unknown client',
      async () => ({ params: { grant_type: 'client_credentials', client_id: 'no-such-client', client_secret: 'x' } }),
      401,
      'invalid_client',
      TEXT.invalidClient,
    ],
    [
      'client_credentials with a wrong secret',
      async () => ({ params: { grant_type: 'client_credentials', client_id: client.uid, client_secret: 'wrong' } }),
      401,
      'invalid_client',
      TEXT.invalidClient,
    ],
    [
      'a confidential client without its secret',
      async () => ({ params: { grant_type: 'client_credentials', client_id: client.uid } }),
      401,
      'invalid_client',
      TEXT.invalidClient,
    ],
    [
      'authorization_code without credentials',
      async () => {
        const grant = await code();
        return { params: { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri } };
      },
      401,
      'invalid_client',
      TEXT.invalidClient,
    ],
    [
      'password without credentials',
      async () => ({ params: { grant_type: 'password', username: user.username, password: user.password } }),
      401,
      'invalid_client',
      TEXT.invalidClient,
    ],
    [
      'client_credentials by a public client (RFC 6749 section 4.4, SPEC 8: 400)',
      async () => ({ params: { grant_type: 'client_credentials', client_id: publicClient.uid } }),
      400,
      'unauthorized_client',
      TEXT.unauthorizedClient,
    ],
    [
      'an unknown code',
      async () => ({
        params: { grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'https://app.example.com/callback' },
        headers: asClient(),
      }),
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    ],
    [
      "another client's code",
      async () => {
        const grant = await code({ application: other });
        return { params: { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri }, headers: asClient() };
      },
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    ],
    [
      'a redirect_uri that differs from the authorization request',
      async () => {
        const grant = await code();
        return {
          params: { grant_type: 'authorization_code', code: grant.code, redirect_uri: `${grant.redirectUri}/x` },
          headers: asClient(),
        };
      },
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    ],
    [
      'a code_verifier that does not match (RFC 7636 section 4.6)',
      async () => {
        const grant = await code({ challenge: true });
        return {
          params: { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: 'x'.repeat(43) },
          headers: asClient(),
        };
      },
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    ],
    [
      'password with a wrong password',
      async () => ({ params: { grant_type: 'password', username: user.username, password: 'wrong' }, headers: asClient() }),
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    ],
    [
      'refresh_token without refresh_token',
      async () => ({ params: { grant_type: 'refresh_token' }, headers: asClient() }),
      400,
      'invalid_request',
      missing('refresh_token'),
    ],
    [
      'an unknown refresh token',
      async () => ({ params: { grant_type: 'refresh_token', refresh_token: 'no-such-token' }, headers: asClient() }),
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    ],
    [
      "another client's refresh token",
      async () => ({ params: { grant_type: 'refresh_token', refresh_token: await refreshToken(other) }, headers: asClient() }),
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    ],
    [
      'a confidential client refreshing without credentials (RFC 6749 section 6, SPEC 8)',
      async () => ({ params: { grant_type: 'refresh_token', refresh_token: await refreshToken() } }),
      401,
      'invalid_client',
      TEXT.invalidClient,
    ],
    [
      'refresh with invalid credentials',
      async () => ({
        params: { grant_type: 'refresh_token', refresh_token: await refreshToken(), client_id: client.uid, client_secret: 'wrong' },
      }),
      401,
      'invalid_client',
      TEXT.invalidClient,
    ],
    [
      'a scope outside the server scopes (RFC 6749 section 3.3)',
      async () => ({ params: { grant_type: 'client_credentials', scope: 'admin' }, headers: asClient() }),
      400,
      'invalid_scope',
      TEXT.invalidScope,
    ],
  ];

  const table = cases.map(([label, setup, status, error, description]) => [label, status, error, description, setup] as const);
  it.each(table)('%s: %i %s with the reference description, not cached', async (_label, status, error, description, setup) => {
    const { params, headers } = await setup();
    const response = await tokenRequest(server.app, params, headers);
    expectOAuthError(response, status, error, description);
    expectNoStore(response);
  });

  it('a disabled grant type is unsupported_grant_type: refresh_token without the refresh_token flow', async () => {
    const response = await tokenRequest(noRefresh.app, { grant_type: 'refresh_token', refresh_token: await refreshToken() }, asClient());
    expectOAuthError(response, 400, 'unsupported_grant_type', TEXT.unsupportedGrantType);
  });

  it('a success carries Cache-Control: no-store and Pragma: no-cache (RFC 6749 section 5.1)', async () => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient());
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expectNoStore(response);
  });

  describe('WWW-Authenticate (RFC 6749 section 5.2)', () => {
    it('a failed HTTP Basic attempt gets 401 with WWW-Authenticate: Basic realm', async () => {
      const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, 'wrong'));
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
    });

    it('an unknown client through HTTP Basic gets the Basic challenge too', async () => {
      const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic('no-such-client', 'x'));
      expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
    });

    it('a failed client_secret_post attempt gets 401 without a Basic challenge', async () => {
      const response = await tokenRequest(server.app, { grant_type: 'client_credentials', client_id: client.uid, client_secret: 'wrong' });
      expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
      expect(response.headers['www-authenticate']).toBeUndefined();
    });
  });

  describe('parameters come from the form body only, once each (SPEC 3, RFC 6749 sections 2.3.1 and 3.2)', () => {
    it.each([
      [
        'grant_type sent twice',
        'grant_type=client_credentials&grant_type=client_credentials',
        'The parameter grant_type was sent more than once.',
      ],
      ['scope sent twice', 'grant_type=client_credentials&scope=read&scope=read', 'The parameter scope was sent more than once.'],
      [
        'client_id sent twice',
        (c: TestClient) => `grant_type=client_credentials&client_id=${c.uid}&client_id=${c.uid}&client_secret=${c.secret}`,
        'The parameter client_id was sent more than once.',
      ],
      [
        'a nested scope[0]',
        'grant_type=client_credentials&scope[0]=read',
        'The parameter scope[0] is not accepted: parameters are not nested.',
      ],
      [
        'a nested client_id[x]',
        (c: TestClient) => `grant_type=client_credentials&client_id[x]=${c.uid}&client_secret=${c.secret}`,
        'The parameter client_id[x] is not accepted: parameters are not nested.',
      ],
      [
        'an array grant_type[]',
        'grant_type[]=client_credentials',
        'The parameter grant_type[] is not accepted: parameters are not nested.',
      ],
    ])('%s is invalid_request saying so', async (_label, body, description) => {
      const payload = typeof body === 'function' ? body(client) : body;
      const headers = typeof body === 'function' ? {} : asClient();
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload,
      });
      expectOAuthError(response, 400, 'invalid_request', description);
      expectNoStore(response);
    });

    it.each([
      ['client_id and client_secret', (c: TestClient) => `client_id=${c.uid}&client_secret=${c.secret}`, {}, 'client_id'],
      ['client_id', (c: TestClient) => `client_id=${c.uid}`, { withBasic: true }, 'client_id'],
      ['client_secret', (c: TestClient) => `client_secret=${c.secret}`, { withBasic: true }, 'client_secret'],
    ])(
      '%s in the query string is invalid_request, even with a valid request body',
      async (_label, query, { withBasic }: { withBasic?: boolean }, named) => {
        const response = await server.app.inject({
          method: 'POST',
          url: `/oauth/token?${query(client)}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(withBasic ? asClient() : {}) },
          payload: 'grant_type=client_credentials',
        });
        expectOAuthError(response, 400, 'invalid_request', `The parameter ${named} must not be sent in the query string.`);
      },
    );

    it('grant_type in the query string is not read (form body only)', async () => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/token?grant_type=client_credentials',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...asClient() },
        payload: '',
      });
      expectOAuthError(response, 400, 'invalid_request', missing('grant_type'));
    });

    it('unknown parameters are ignored (RFC 6749 section 3.1)', async () => {
      const response = await tokenRequest(server.app, { grant_type: 'client_credentials', foo: 'bar', 'x-y': '' }, asClient());
      expect(response.statusCode).toBe(200);
    });
  });
});
