import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveApplication } from '../../src/oauth/clients/applications.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7591 section 2 (issue 19): the metadata is stored as registered, grant and response types are consistent
// (section 2.1), application_type decides which redirect URIs a client may use (OpenID Connect Registration
// section 2, RFC 8252), and members this server does not understand are ignored.

const JSON_HEADERS = { 'content-type': 'application/json' };
const CONFIG = {
  // Issue 29: the operator lets self-registered clients register client_credentials (each still needs an approval).
  registration: {
    policy: 'open' as const,
    perAddressPerMinute: 0,
    allowedGrantTypes: ['authorization_code' as const, 'refresh_token' as const, 'client_credentials' as const],
  },
  grantFlows: ['authorization_code' as const, 'client_credentials' as const],
  defaultScopes: ['read'],
  optionalScopes: ['write'],
};

describe(`RFC 7591 client metadata (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: CONFIG });
  });
  afterAll(() => server.close());

  const register = (payload: object) => server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload });
  const refusal = async (payload: object) => {
    const response = await register(payload);
    return { status: response.statusCode, error: response.json().error as string };
  };

  it('section 2: the metadata is stored in one write as registered (grant types, exact method, display data)', async () => {
    const response = await register({
      redirect_uris: ['https://rp.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_post',
      client_uri: 'https://rp.example/',
      logo_uri: 'https://rp.example/logo.png',
      contacts: ['a@rp.example', 'b@rp.example'],
      software_id: '4NRB1-0XZABZI9E6-5SM3R',
      software_version: '1.0',
    });
    expect(response.statusCode).toBe(201);
    const stored = await server.deps.stores.applications.findByUid(response.json().client_id);
    expect(stored).toMatchObject({
      registeredBy: 'dynamic',
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'client_secret_post',
      applicationType: 'web',
      clientUri: 'https://rp.example/',
      logoUri: 'https://rp.example/logo.png',
      policyUri: null,
      contacts: ['a@rp.example', 'b@rp.example'],
      softwareId: '4NRB1-0XZABZI9E6-5SM3R',
      softwareVersion: '1.0',
      confidential: true,
    });
    // One write: created and updated at the same instant, with the registration access token already set.
    expect(stored!.updatedAt.getTime()).toBe(stored!.createdAt.getTime());
    expect(stored!.registrationAccessToken).toMatch(/^[0-9a-f]{64}$/);
    expect(response.json()).toMatchObject({ response_types: ['code'], application_type: 'web' });
  });

  it('section 2: members this server does not understand are ignored, not refused and not echoed', async () => {
    const response = await register({
      redirect_uris: ['https://rp.example/cb'],
      request_uris: ['https://rp.example/request'],
      software_statement: 'eyJ...',
      'client_name#ja-Jpan-JP': 'クライアント名',
      extension: { nested: [1, 2, 3] },
    });
    expect(response.statusCode).toBe(201);
    for (const member of ['request_uris', 'software_statement', 'client_name#ja-Jpan-JP', 'extension'])
      expect(response.json()[member]).toBeUndefined();
    // However deeply nested: only what is kept is held to the nesting limit (the jwks, below).
    const deep = `{"redirect_uris":["https://rp.example/cb"],"extension":${'['.repeat(6000)}${']'.repeat(6000)}}`;
    const ignored = await server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload: deep });
    expect(ignored.statusCode, ignored.body).toBe(201);
    expect(ignored.json().extension).toBeUndefined();
  });

  it('a jwks nested thousands deep is invalid_client_metadata, not a server error (storing it overflowed the stack)', async () => {
    const { publicKey } = await generateKeyPair('ES256');
    const key = JSON.stringify(await exportJWK(publicKey));
    const jwks = `{"keys":[${key.slice(0, -1)},"x5c_extra":${'['.repeat(6000)}${']'.repeat(6000)}}]}`;
    const payload = `{"redirect_uris":["https://rp.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":${jwks}}`;
    const response = await server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'The jwks is nested too deeply (at most 32 levels of objects and arrays).',
    });
  });

  it('section 2: a redirect URI listed twice is stored and answered once, in the order first given', async () => {
    const redirect_uris = ['https://rp.example/b', 'https://rp.example/a', 'https://rp.example/b', 'https://rp.example/a'];
    const response = await register({ redirect_uris });
    expect(response.statusCode).toBe(201);
    expect(response.json().redirect_uris).toEqual(['https://rp.example/b', 'https://rp.example/a']);
    const stored = await server.deps.stores.applications.findByUid(response.json().client_id);
    expect(stored!.redirectUris).toEqual(['https://rp.example/b', 'https://rp.example/a']);
  });

  it('issue 34: jwks_uri is understood now, stored and echoed (the keys a private_key_jwt client would use)', async () => {
    const response = await register({ redirect_uris: ['https://rp.example/cb'], jwks_uri: 'https://rp.example/jwks' });
    expect(response.statusCode).toBe(201);
    expect(response.json().jwks_uri).toBe('https://rp.example/jwks');
    const refused = await register({ redirect_uris: ['https://rp.example/cb'], jwks_uri: 'http://rp.example/jwks' });
    expect(refused.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: 'The jwks_uri must be an https URL.' });
    for (const internal of ['https://127.0.0.1:8443/jwks', 'https://10.0.0.5/jwks', 'https://[::1]/jwks']) {
      const refusedInternal = await register({ redirect_uris: ['https://rp.example/cb'], jwks_uri: internal });
      expect(refusedInternal.json(), internal).toMatchObject({
        error: 'invalid_client_metadata',
        error_description: 'The jwks_uri must not point at a loopback, private or link-local host.',
      });
    }
  });

  it('application_type native, or left out: loopback http on any port and private-use schemes are allowed', async () => {
    const omitted = await register({ redirect_uris: ['http://127.0.0.1:49152/callback'], token_endpoint_auth_method: 'none' });
    expect(omitted.statusCode).toBe(201);
    expect(omitted.json().application_type).toBe('native');
    for (const redirect_uris of [['http://[::1]:8080/cb'], ['http://localhost:33418/'], ['com.example.app:/oauth2redirect']]) {
      const native = await register({ redirect_uris, application_type: 'native', token_endpoint_auth_method: 'none' });
      expect({ redirect_uris, status: native.statusCode }).toEqual({ redirect_uris, status: 201 });
      expect(native.json().application_type).toBe('native');
    }
    // Left out with https URIs only: OpenID Connect Registration's default, web.
    expect((await register({ redirect_uris: ['https://rp.example/cb'] })).json().application_type).toBe('web');
  });

  it('application_type web: http loopback and private-use schemes are invalid_redirect_uri; an unknown type is invalid_client_metadata', async () => {
    for (const redirect_uris of [['http://127.0.0.1:8080/cb'], ['http://localhost/cb'], ['com.example.app:/cb']])
      expect(await refusal({ redirect_uris, application_type: 'web' })).toEqual({ status: 400, error: 'invalid_redirect_uri' });
    expect(await refusal({ redirect_uris: ['https://rp.example/cb'], application_type: 'desktop' })).toEqual({
      status: 400,
      error: 'invalid_client_metadata',
    });
  });

  it('section 2.1: a client_credentials-only client needs no redirect URI while authorization_code is enabled', async () => {
    for (const payload of [{ grant_types: ['client_credentials'], response_types: [] }, { grant_types: ['client_credentials'] }]) {
      const response = await register({ ...payload, client_name: 'Batch job' });
      expect(response.statusCode).toBe(201);
      const client = response.json();
      expect(client).toMatchObject({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [] });
      const token = () => tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.client_id, client.client_secret));
      // Issue 29: under the open policy client_credentials waits for an admin's approval.
      expect((await token()).json()).toMatchObject({ error: 'unauthorized_client' });
      await approveApplication(server.deps, (await server.deps.stores.applications.findByUid(client.client_id))!.id);
      expect((await token()).statusCode).toBe(200);
    }
  });

  it('section 2.1: inconsistent or unsupported grant and response types are invalid_client_metadata', async () => {
    const uris = { redirect_uris: ['https://rp.example/cb'] };
    for (const payload of [
      { ...uris, grant_types: [] },
      { ...uris, grant_types: ['refresh_token'] },
      { ...uris, grant_types: ['implicit'], response_types: ['token'] },
      { ...uris, grant_types: ['password'] },
      { ...uris, response_types: [] },
      { ...uris, response_types: ['code', 'id_token'] },
      { grant_types: ['client_credentials'], response_types: ['code'] },
    ])
      expect({ payload, ...(await refusal(payload)) }).toEqual({ payload, status: 400, error: 'invalid_client_metadata' });
    // grant_types left out is authorization_code, which needs a redirect URI.
    expect(await refusal({ redirect_uris: [] })).toEqual({ status: 400, error: 'invalid_redirect_uri' });
  });

  it('contacts: e-mail addresses, at most ten', async () => {
    const uris = { redirect_uris: ['https://rp.example/cb'] };
    for (const contacts of [
      ['not an address'],
      ['<a@b.example>'],
      Array.from({ length: 11 }, (_, i) => `c${i}@rp.example`),
      'a@rp.example',
    ])
      expect({ contacts, ...(await refusal({ ...uris, contacts })) }).toEqual({ contacts, status: 400, error: 'invalid_client_metadata' });
  });

  it('RFC 8414: the metadata names the registration endpoint and the client authentication methods', async () => {
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.registration_endpoint).toBe('http://127.0.0.1:3000/oauth/register');
    expect([...metadata.token_endpoint_auth_methods_supported].sort()).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'none',
      'private_key_jwt',
    ]);
  });
});
