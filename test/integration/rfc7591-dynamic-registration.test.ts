import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveApplication } from '../../src/oauth/clients/applications.js';
import { basic, expectNoStore, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7591 (issue 19): open registration at POST /oauth/register, sections 2, 3.1, 3.2.1 and 3.2.2.

const JSON_HEADERS = { 'content-type': 'application/json' };
const CONFIG = {
  // Issue 29: the operator lets self-registered clients register write and client_credentials here.
  registration: {
    policy: 'open' as const,
    maxOpenRegistrations: 4,
    perAddressPerMinute: 0,
    allowedScopes: ['read', 'write'],
    allowedGrantTypes: ['authorization_code' as const, 'refresh_token' as const, 'client_credentials' as const],
  },
  defaultScopes: ['read'],
  optionalScopes: ['write'],
};

describe(`RFC 7591 dynamic client registration (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: CONFIG });
  });
  afterAll(() => server.close());

  const register = (payload: object) => server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload });

  it('section 3.2.1: a public client (none) gets a client_id, no secret, a registration access token and its metadata', async () => {
    const response = await register({
      redirect_uris: ['https://rp.example/cb'],
      token_endpoint_auth_method: 'none',
      client_name: 'Public app',
    });
    expect(response.statusCode).toBe(201);
    expectNoStore(response);
    const body = response.json();
    expect(body).toMatchObject({
      redirect_uris: ['https://rp.example/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      client_name: 'Public app',
      registration_client_uri: `http://127.0.0.1:3000/oauth/register/${body.client_id}`,
    });
    expect(body.client_secret).toBeUndefined();
    expect(typeof body.registration_access_token).toBe('string');
    expect(Math.abs(body.client_id_issued_at - Date.now() / 1000)).toBeLessThan(60);
    const stored = await server.deps.stores.applications.findByUid(body.client_id);
    expect(stored).toMatchObject({ confidential: false, registeredBy: 'dynamic', redirectUris: ['https://rp.example/cb'] });
    expect(stored!.registrationAccessToken).not.toBe(body.registration_access_token);

    // An application the authorize endpoint knows: it shows the login step, not the unknown-client error page.
    const authorize = await server.app.inject({
      method: 'GET',
      url: `/oauth/authorize?response_type=code&client_id=${body.client_id}&redirect_uri=${encodeURIComponent('https://rp.example/cb')}&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
    });
    expect(authorize.statusCode).toBe(302);
    expect(authorize.headers.location).not.toMatch(/^https:\/\/rp\.example/);
  });

  it('section 3.2.1: a confidential client gets a secret that expires never (0) and can use client_credentials once approved', async () => {
    const response = await register({
      redirect_uris: ['http://127.0.0.1:8765/cb'],
      grant_types: ['authorization_code', 'client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'read write',
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({ client_secret_expires_at: 0, scope: 'read write', token_endpoint_auth_method: 'client_secret_basic' });
    const token = () =>
      tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'write' }, basic(body.client_id, body.client_secret));
    // Issue 29: under the open policy client_credentials waits for an admin's approval.
    expect((await token()).json()).toMatchObject({ error: 'unauthorized_client' });
    await approveApplication(server.deps, (await server.deps.stores.applications.findByUid(body.client_id))!.id);
    expect((await token()).json()).toMatchObject({ token_type: 'Bearer', scope: 'write' });
  });

  it('section 3.2.2: invalid_redirect_uri for each kind of redirect URI that cannot be registered', async () => {
    for (const redirect_uris of [
      [],
      ['http://rp.example/cb'],
      ['https://rp.example/cb#fragment'],
      ['myapp:/cb'],
      ['javascript:alert(1)'],
      ['not a uri'],
    ]) {
      const response = await register({ redirect_uris, token_endpoint_auth_method: 'none' });
      expect({ redirect_uris, status: response.statusCode, error: response.json().error }).toEqual({
        redirect_uris,
        status: 400,
        error: 'invalid_redirect_uri',
      });
    }
    expect((await register({ redirect_uris: ['com.example.app:/cb'], token_endpoint_auth_method: 'none' })).statusCode).toBe(201);
  });

  it('section 3.2.2: invalid_client_metadata for each inconsistent or unsupported value', async () => {
    const uris = { redirect_uris: ['https://rp.example/cb'] };
    for (const payload of [
      { ...uris, grant_types: ['password'] },
      { ...uris, grant_types: ['authorization_code'], response_types: ['token'] },
      { ...uris, grant_types: ['client_credentials'], response_types: ['code'] },
      { ...uris, token_endpoint_auth_method: 'private_key_jwt' },
      { ...uris, grant_types: ['authorization_code', 'client_credentials'], token_endpoint_auth_method: 'none' },
      { ...uris, client_name: 'x'.repeat(256) },
      { ...uris, client_name: 'bad\u0007name' },
      { ...uris, scope: 'admin' },
      { ...uris, grant_types: 'authorization_code' },
    ]) {
      const response = await register(payload);
      expect({ payload, status: response.statusCode, error: response.json().error }).toEqual({
        payload,
        status: 400,
        error: 'invalid_client_metadata',
      });
    }
  });

  it('a grant the server serves but no self-registered client may use is "not allowed", not "not supported" (discovery lists it)', async () => {
    const exchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
    const serving = await buildTestServer({
      testDatabase: server.testDatabase,
      config: { ...CONFIG, grantFlows: ['authorization_code', 'refresh_token', 'client_credentials', exchange] },
    });
    try {
      const response = await serving.app.inject({
        method: 'POST',
        url: '/oauth/register',
        headers: JSON_HEADERS,
        payload: { redirect_uris: ['https://rp.example/cb'], grant_types: [exchange] },
      });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 400,
        body: {
          error: 'invalid_client_metadata',
          error_description: `grant_types: ${exchange} is not allowed for clients that register themselves here: an admin registers clients that use it.`,
        },
      });
      expect((await register({ redirect_uris: ['https://rp.example/cb'], grant_types: [exchange] })).json().error_description).toBe(
        `grant_types: ${exchange} is not supported.`,
      );
    } finally {
      await serving.close();
    }
  });

  it('a body that is no JSON is invalid_request saying so, not the generic text (STANDARDS: a specific error)', async () => {
    const send = (payload: string) => server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload });
    const notJson = 'The request body is not valid JSON, or holds a __proto__ or constructor.prototype key.';
    for (const [payload, description] of [
      ['{"redirect_uris": [}', notJson],
      ['{"redirect_uris": ["https://rp.example/cb"], "__proto__": {"x": 1}}', notJson],
      ['', 'The request body is empty, but its Content-Type is application/json.'],
    ] as const) {
      const response = await send(payload);
      expect({ payload, status: response.statusCode, body: response.json() }).toEqual({
        payload,
        status: 400,
        body: { error: 'invalid_request', error_description: description },
      });
    }
  });

  it('refuses a registration beyond maxOpenRegistrations with invalid_client_metadata', async () => {
    const before = (await server.deps.stores.applicationAdmin.list()).filter((app) => app.registeredBy === 'dynamic').length;
    for (let i = before; i < CONFIG.registration.maxOpenRegistrations; i++) {
      expect((await register({ redirect_uris: ['https://rp.example/cb'] })).statusCode).toBe(201);
    }
    const full = await register({ redirect_uris: ['https://rp.example/cb'] });
    expect({ status: full.statusCode, body: full.json() }).toEqual({
      status: 400,
      body: { error: 'invalid_client_metadata', error_description: 'Open registration is full' },
    });
  });
});

describe(`RFC 7591 registration with policy off (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  it('has no registration endpoint (404) and no registration_endpoint in the metadata', async () => {
    const response = await server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload: {} });
    expect(response.statusCode).toBe(404);
    const metadata = await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.json().registration_endpoint).toBeUndefined();
  });

  it('the metadata names the registration endpoint when the policy is open', async () => {
    const open = await buildTestServer({ config: CONFIG });
    const metadata = await open.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    await open.close();
    expect(metadata.json().registration_endpoint).toBe('http://127.0.0.1:3000/oauth/register');
  });
});

describe(`RFC 7591 registration under rateLimit.perClientPerMinute (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { ...CONFIG, rateLimit: { perClientPerMinute: 2 } } });
  });
  afterAll(() => server.close());

  it('counts registration requests per address: the third in a minute is 429', async () => {
    const request = (remoteAddress: string) =>
      server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload: { redirect_uris: [] }, remoteAddress });
    expect((await request('192.0.2.1')).statusCode).toBe(400);
    expect((await request('192.0.2.1')).statusCode).toBe(400);
    expect((await request('192.0.2.1')).statusCode).toBe(429);
    expect((await request('192.0.2.2')).statusCode).toBe(400);
  });
});
