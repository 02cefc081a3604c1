import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import {
  basic,
  bearer,
  bearerChallenge,
  during,
  expectNoStore,
  expectSecondsLeft,
  revokeRequest,
  TEXT,
  tokenInfoRequest,
} from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// GET /oauth/token/info (reference 11, SPEC 3.4) with RFC 6750's challenges.

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const INVALID_TOKEN = { error: 'invalid_token', error_description: TEXT.tokenInvalid };

describe(`GET /oauth/token/info on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;
  let userId: number;

  beforeAll(async () => {
    server = await buildTestServer({ config: { optionalScopes: ['write'] } });
    client = await createClient(server.deps);
    userId = (await createUser(server.deps)).id;
  });
  afterAll(() => server.close());

  it('a valid Bearer token: 200 with resource_owner_id, scope as a list, expires_in, application.uid and created_at', async () => {
    const issued = await issueToken(server.deps, { application: client.application, resourceOwnerId: userId, scopes: ['read', 'write'] });
    const { response, from, to } = await during(server.clock, () => tokenInfoRequest(server.app, bearer(issued.accessToken)));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json();
    expect(body).toEqual({
      resource_owner_id: userId,
      scope: ['read', 'write'],
      expires_in: expect.any(Number),
      application: { uid: client.uid },
      created_at: seconds(issued.record.createdAt),
    });
    expectSecondsLeft(body.expires_in, issued.record.createdAt.getTime() + 7_200_000, from, to);
    expect(body.expires_in).toBeLessThanOrEqual(7200);
  });

  it('expires_in counts down with the clock', async () => {
    const issued = await issueToken(server.deps, { application: client.application });
    server.clock.advance(100);
    const { response, from, to } = await during(server.clock, () => tokenInfoRequest(server.app, bearer(issued.accessToken)));
    expectSecondsLeft(response.json().expires_in, issued.record.createdAt.getTime() + 7_200_000, from, to);
    expect(response.json().expires_in).toBeLessThanOrEqual(7100);
  });

  it('a token that never expires has expires_in null; a token without application has application.uid null', async () => {
    const issued = await issueToken(server.deps, { application: null, expiresIn: null, scopes: [] });
    const response = await tokenInfoRequest(server.app, bearer(issued.accessToken));
    expect(response.json()).toEqual({
      resource_owner_id: null,
      scope: [],
      expires_in: null,
      application: { uid: null },
      created_at: seconds(issued.record.createdAt),
    });
  });

  it('the Bearer scheme is case-insensitive (RFC 7235 section 2.1)', async () => {
    const issued = await issueToken(server.deps, { application: client.application });
    const response = await tokenInfoRequest(server.app, { authorization: `bearer ${issued.accessToken}` });
    expect(response.statusCode).toBe(200);
  });

  it.each([
    ['no Authorization header', {}],
    ['an empty Bearer credential', { authorization: 'Bearer' }],
    ['HTTP Basic instead of Bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('%s: 401 with a challenge without error code (RFC 6750 section 3.1)', async (_label, headers) => {
    const response = await tokenInfoRequest(server.app, headers);
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 401, body: INVALID_TOKEN });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="oauth-service"');
  });

  it.each([
    ['an unknown token', async () => 'no-such-token'],
    [
      'an expired token',
      async () => {
        const issued = await issueToken(server.deps, { application: client.application, expiresIn: 10 });
        server.clock.advance(10);
        return issued.accessToken;
      },
    ],
    [
      'a revoked token',
      async () => {
        const issued = await issueToken(server.deps, { application: client.application });
        await revokeRequest(server.app, { token: issued.accessToken }, basic(client.uid, client.secret!));
        return issued.accessToken;
      },
    ],
    [
      'a refresh token (not an access token)',
      async () => (await issueToken(server.deps, { application: client.application, withRefreshToken: true })).refreshToken!,
    ],
  ])('%s: 401 invalid_token "The access token is invalid" with error="invalid_token" (reference 11)', async (_label, token) => {
    const response = await tokenInfoRequest(server.app, bearer(await token()));
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 401, body: INVALID_TOKEN });
    expect(response.headers['www-authenticate']).toBe(bearerChallenge(TEXT.tokenInvalid));
    expectNoStore(response);
  });
});
