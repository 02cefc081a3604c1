import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedForm } from '../../src/oauth/secrets.js';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';
import { backend } from '../helpers/test-database.js';
import { createClient, createUser, issueToken } from '../helpers/factories.js';
import { buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';
import { bearer, OPENID_ENV, setUserColumns, userToken } from './oidc-userinfo-support.js';

// OpenID Connect Core 1.0 section 5.3 (issue 16; conformance modules oidcc-userinfo-get, -post-header,
// -post-body): the token in the header or the form body, and RFC 6750 section 3.1's refusals. The claims per
// scope are in oidc-userinfo-scopes.test.ts, the signed variant in oidc-userinfo-signed.test.ts.

describe(`UserInfo requests (${backend})`, () => {
  let server: TestServer;
  let application: ApplicationRecord;
  let user: UserRecord;

  beforeAll(async () => {
    server = await buildTestServer({ config: { openid: { enabled: true } }, env: OPENID_ENV });
    application = (await createClient(server.deps)).application;
    user = await createUser(server.deps);
    await setUserColumns(server, user, { name: 'Alice', email: 'alice@example.com', email_verified: true });
  });
  afterAll(() => server.close());

  const get = (headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url: '/oauth/userinfo', headers });
  const post = (headers: Record<string, string> = {}, body?: string) =>
    server.app.inject({ method: 'POST', url: '/oauth/userinfo', headers, ...(body !== undefined && { payload: body }) });
  const expected = () => ({ sub: user.subject, name: 'Alice', email: 'alice@example.com', email_verified: true });

  it('GET with the token in the Authorization header: JSON claims, not cacheable', async () => {
    const response = await get(bearer(await userToken(server, application, user, ['openid', 'profile', 'email'])));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ ...expected(), updated_at: expect.any(Number) });
    expect(response.json().sub).not.toBe(user.username);
  });

  it('POST with the token in the header, with or without a body', async () => {
    const token = await userToken(server, application, user, ['openid', 'email']);
    for (const response of [await post(bearer(token)), await post({ ...bearer(token), ...FORM }, form({ other: 'ignored' }))]) {
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ sub: user.subject, email: 'alice@example.com', email_verified: true });
    }
  });

  it('POST with the token in the form body (RFC 6750 section 2.2)', async () => {
    const token = await userToken(server, application, user, ['openid', 'email']);
    const response = await post(FORM, form({ access_token: token }));
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ sub: user.subject, email: 'alice@example.com', email_verified: true });
  });

  it('no token: 401 with a bare challenge (RFC 6750 section 3.1), also for a GET with the token in the query', async () => {
    const token = await userToken(server, application, user, ['openid']);
    const noToken = [
      await get(),
      await post(),
      await post(FORM, form({ access_token: '' })),
      await get({ authorization: 'Basic YTpi' }),
      await server.app.inject({ method: 'GET', url: `/oauth/userinfo?access_token=${token}` }),
      // RFC 6750 section 2.2: only a form body carries the token.
      await post({ 'content-type': 'application/json' }, JSON.stringify({ access_token: token })),
    ];
    for (const response of noToken) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="oauth-service"');
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  it('an unknown, malformed, revoked or expired token: 401 invalid_token', async () => {
    const revoked = await userToken(server, application, user, ['openid']);
    const record = await server.deps.stores.accessTokens.findByToken(storedForm(revoked, server.config.hashTokens));
    await server.deps.stores.accessTokens.revoke(record!.id, server.deps.now());
    const expired = await userToken(server, application, user, ['openid'], 60);
    server.clock.advance(61);
    const refusals = [
      { response: await get(bearer('unknown-token')), description: 'The access token is invalid' },
      { response: await get({ authorization: 'Bearer a b' }), description: 'The access token is invalid' },
      { response: await get(bearer(revoked)), description: 'The access token was revoked' },
      { response: await post(FORM, form({ access_token: expired })), description: 'The access token expired' },
    ];
    for (const { response, description } of refusals) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: 'invalid_token', error_description: description });
      expect(response.headers['www-authenticate']).toBe(
        `Bearer realm="oauth-service", error="invalid_token", error_description="${description}"`,
      );
    }
  });

  it('a token without openid: 403 insufficient_scope naming openid', async () => {
    const response = await get(bearer(await userToken(server, application, user, ['profile', 'email'])));
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('insufficient_scope');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="oauth-service", error="insufficient_scope", .*, scope="openid"$/);
  });

  it('a token without a resource owner (client credentials): 401 invalid_token, with or without openid (no scope would help)', async () => {
    for (const scopes of [['openid'], ['profile']]) {
      const response = await get(bearer(await userToken(server, application, null, scopes)));
      expect(response.statusCode, scopes.join(' ')).toBe(401);
      expect(response.json().error).toBe('invalid_token');
    }
  });

  it("a token issued for a resource (RFC 8707) is that API's: 401 invalid_token, so the API cannot replay it here for the user's claims", async () => {
    const api = 'https://userinfo-audience.example.com';
    await server.deps.stores.resources.create({
      uri: api,
      name: '',
      scopes: ['read'],
      tokenFormat: 'opaque',
      accessTokenLifetime: null,
      serverClientId: null,
    });
    const audience = { uris: [api], resources: await server.deps.stores.resources.findByUris([api]) };
    const issued = await issueToken(server.deps, {
      application,
      resourceOwnerId: user.id,
      scopes: ['openid', 'read'],
      grantType: 'authorization_code',
      audience,
    });
    const response = await get(bearer(issued.accessToken));
    expect([response.statusCode, response.json()]).toEqual([
      401,
      {
        error: 'invalid_token',
        error_description: 'The access token is meant for another resource (its audience); this endpoint takes a token issued without one',
      },
    ]);
    expect((await get(bearer(await userToken(server, application, user, ['openid'])))).statusCode).toBe(200);
  });

  it('a disabled or deleted user: 401 invalid_token', async () => {
    const disabled = await createUser(server.deps);
    const token = await userToken(server, application, disabled, ['openid']);
    expect((await get(bearer(token))).statusCode).toBe(200);
    await setUserColumns(server, disabled, { disabled_at: new Date() });
    expect((await get(bearer(token))).json()).toMatchObject({ error: 'invalid_token' });

    const deleted = await createUser(server.deps);
    const orphan = await userToken(server, application, deleted, ['openid']);
    await server.deps.stores.userAdmin.delete(deleted.username);
    // Deleting a user may take the tokens with it: either way the answer is 401 invalid_token.
    expect((await get(bearer(orphan))).statusCode).toBe(401);
  });

  it('the token in both the header and the body: 400 invalid_request; a repeated access_token too', async () => {
    const token = await userToken(server, application, user, ['openid']);
    const both = await post({ ...bearer(token), ...FORM }, form({ access_token: token }));
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toBe('invalid_request');
    const repeated = await post(FORM, form({ access_token: [token, token] }));
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().error).toBe('invalid_request');
  });
});

describe(`UserInfo without openid.enabled (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  it('there is no UserInfo endpoint', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/oauth/userinfo' })).statusCode).toBe(404);
    expect((await server.app.inject({ method: 'POST', url: '/oauth/userinfo' })).statusCode).toBe(404);
  });
});

describe(`UserInfo under rateLimit.perClientPerMinute (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { openid: { enabled: true }, rateLimit: { perClientPerMinute: 2 } }, env: OPENID_ENV });
  });
  afterAll(() => server.close());

  it('counts requests per address, like token info: the third in a minute is 429', async () => {
    const request = (remoteAddress: string) => server.app.inject({ method: 'GET', url: '/oauth/userinfo', remoteAddress });
    expect((await request('192.0.2.1')).statusCode).toBe(401);
    expect((await request('192.0.2.1')).statusCode).toBe(401);
    expect((await request('192.0.2.1')).statusCode).toBe(429);
    expect((await request('192.0.2.2')).statusCode).toBe(401);
    // An IPv6 address counts by its /64, as every limit counts it: one host has them all.
    expect((await request('2001:db8:1:2::a')).statusCode).toBe(401);
    expect((await request('2001:db8:1:2::b')).statusCode).toBe(401);
    expect((await request('2001:db8:1:2::c')).statusCode).toBe(429);
  });
});
