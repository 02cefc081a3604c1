import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistrationToken, revokeRegistrationToken } from '../../src/oauth/clients/registration/registration-tokens.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7591 section 3 (issue 19), policy initialAccessToken: registering needs an initial access token an admin
// made, sent as a Bearer token; missing, unknown, revoked, expired or used up, it is 401 invalid_token with a
// Bearer challenge (RFC 6750 section 3; without an error code when no token was sent). Under open no token is needed.

const JSON_HEADERS = { 'content-type': 'application/json' };
const CLIENT = { redirect_uris: ['https://rp.example/cb'] };

describe(`RFC 7591 initial access tokens (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { registration: { policy: 'initialAccessToken', perAddressPerMinute: 0 } } });
  });
  afterAll(() => server.close());

  const register = (token: string | null, payload: object = CLIENT, authorization = token === null ? undefined : `Bearer ${token}`) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { ...JSON_HEADERS, ...(authorization !== undefined && { authorization }) },
      payload,
    });
  // RFC 6750 section 3.1: the challenge names the error only when a Bearer token was sent.
  const expectInvalidToken = (response: Awaited<ReturnType<typeof register>>, tokenSent = true) => {
    expect({ status: response.statusCode, error: response.json().error }).toEqual({ status: 401, error: 'invalid_token' });
    expect(response.headers['www-authenticate']).toMatch(
      tokenSent ? /^Bearer realm="[^"]*", error="invalid_token"/ : /^Bearer realm="[^"]*"$/,
    );
    expect(response.headers['cache-control']).toBe('no-store');
  };
  const make = (uses: number | null = null, expiresInSeconds: number | null = null) =>
    createRegistrationToken(server.deps, { uses, expiresInSeconds });

  it('a valid token registers; its uses count down, and the last use is the last registration', async () => {
    const { plainToken, record } = await make(2);
    expect(record.token).not.toBe(plainToken);
    expect(record.token).toMatch(/^[0-9a-f]{64}$/);
    expect((await register(plainToken)).statusCode).toBe(201);
    expect((await register(plainToken)).statusCode).toBe(201);
    expectInvalidToken(await register(plainToken));
    const [stored] = (await server.deps.stores.registrations.listTokens()).filter((token) => token.id === record.id);
    expect(stored!.usesRemaining).toBe(0);
  });

  it('missing, malformed, unknown, revoked and expired tokens are 401 invalid_token, and nothing is registered', async () => {
    const before = await server.deps.stores.registrations.countLiveClients('dynamic', new Date(0));
    expectInvalidToken(await register(null), false);
    expectInvalidToken(await register(null, CLIENT, 'Basic YTpi'), false);
    expectInvalidToken(await register('unknown-token'));
    const revoked = await make();
    expect(await revokeRegistrationToken(server.deps, revoked.record.id)).toBe(true);
    expectInvalidToken(await register(revoked.plainToken));
    const expiring = await make(null, 60);
    expect((await register(expiring.plainToken)).statusCode).toBe(201);
    server.clock.advance(61);
    expectInvalidToken(await register(expiring.plainToken));
    expect(await server.deps.stores.registrations.countLiveClients('dynamic', new Date(0))).toBe(before + 1);
  });

  it('the token is checked before the metadata, and a refused registration does not use it up', async () => {
    expectInvalidToken(await register(null, { redirect_uris: ['javascript:alert(1)'] }), false);
    const { plainToken } = await make(1);
    const invalid = await register(plainToken, { redirect_uris: ['javascript:alert(1)'] });
    expect({ status: invalid.statusCode, error: invalid.json().error }).toEqual({ status: 400, error: 'invalid_redirect_uri' });
    expect((await register(plainToken)).statusCode).toBe(201);
  });

  it('a single-use token used by 8 concurrent registrations registers exactly one client', async () => {
    const { plainToken } = await make(1);
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => register(plainToken)))).map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(7).fill(401)]);
  });

  it('the registration access token, not the initial one, manages the registration (RFC 7592)', async () => {
    const { plainToken } = await make();
    const client = (await register(plainToken)).json();
    const read = (token: string) =>
      server.app.inject({ method: 'GET', url: `/oauth/register/${client.client_id}`, headers: { authorization: `Bearer ${token}` } });
    expect((await read(client.registration_access_token)).statusCode).toBe(200);
    expect((await read(plainToken)).statusCode).toBe(401);
  });
});

describe(`RFC 7591 open registration needs no initial access token (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { registration: { policy: 'open' } } });
  });
  afterAll(() => server.close());

  it('registers without an Authorization header, and ignores one it is given', async () => {
    for (const headers of [JSON_HEADERS, { ...JSON_HEADERS, authorization: 'Bearer whatever' }]) {
      const response = await server.app.inject({ method: 'POST', url: '/oauth/register', headers, payload: CLIENT });
      expect(response.statusCode).toBe(201);
    }
  });
});
