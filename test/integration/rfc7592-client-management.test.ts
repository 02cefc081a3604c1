import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveApplication } from '../../src/oauth/clients/applications.js';
import { deleteClient } from '../../src/oauth/clients/registration/client-registration.js';
import { basic, bearer, expectNoStore, registrationRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7592 (issue 19): a self-registered client reads, updates and deletes its registration with the
// registration access token it was given (section 2), which is compared by hash and only for its own client.

const JSON_HEADERS = { 'content-type': 'application/json' };
// Issue 29: the operator lets self-registered clients register write and client_credentials here; a client uses
// client_credentials once an admin approved it (approve below).
const CONFIG = {
  registration: {
    policy: 'open' as const,
    perAddressPerMinute: 0,
    allowedScopes: ['read', 'write'],
    allowedGrantTypes: ['authorization_code' as const, 'refresh_token' as const, 'client_credentials' as const],
  },
  defaultScopes: ['read'],
  optionalScopes: ['write'],
};

// RFC 7591 section 2: metadata the server keeps as sent (links, contacts, software) and answers back unchanged.
const DESCRIPTIVE_METADATA = {
  client_uri: 'https://rp.example/',
  logo_uri: 'https://cdn.rp.example/logo.png',
  policy_uri: 'https://rp.example/privacy',
  tos_uri: 'https://rp.example/terms',
  contacts: ['ops@rp.example'],
  software_id: 'rp-desktop',
  software_version: '2.1.0',
};

describe(`RFC 7592 client management (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: CONFIG });
  });
  afterAll(() => server.close());

  const register = async (payload: object = {}) =>
    (
      await server.app.inject({
        method: 'POST',
        url: '/oauth/register',
        headers: JSON_HEADERS,
        payload: { redirect_uris: ['https://rp.example/cb'], grant_types: ['authorization_code', 'client_credentials'], ...payload },
      })
    ).json();
  const approve = async (client: Record<string, string>) =>
    approveApplication(server.deps, (await server.deps.stores.applications.findByUid(client.client_id!))!.id);
  const manage = (method: 'GET' | 'PUT' | 'DELETE', clientId: string, token: string | null, payload?: object) =>
    server.app.inject({
      method,
      url: `/oauth/register/${clientId}`,
      headers: { ...(payload && JSON_HEADERS), ...(token !== null && bearer(token)) },
      ...(payload && { payload }),
    });

  it('section 2.1 and 3: GET answers the metadata as registered, from the stored record, without the secret', async () => {
    const client = await register({
      client_name: 'Reader',
      scope: 'read',
      token_endpoint_auth_method: 'client_secret_post',
      ...DESCRIPTIVE_METADATA,
      unknown_member: 'ignored',
    });
    const response = await manage('GET', client.client_id, client.registration_access_token);
    expect(response.statusCode).toBe(200);
    expectNoStore(response);
    // Section 3: the answer holds the registration access token, a new one each time (issue 29 item 6).
    const { registration_access_token: rotated, ...read } = response.json();
    expect(rotated).toEqual(expect.any(String));
    expect(rotated).not.toBe(client.registration_access_token);
    expect(read).toEqual({
      client_id: client.client_id,
      client_id_issued_at: client.client_id_issued_at,
      registration_client_uri: client.registration_client_uri,
      client_name: 'Reader',
      redirect_uris: ['https://rp.example/cb'],
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'client_credentials'],
      response_types: ['code'],
      application_type: 'web',
      subject_type: 'public',
      refresh_tokens: 'always',
      scope: 'read',
      ...DESCRIPTIVE_METADATA,
    });
    // The registration answer is the same metadata, with the credentials.
    const { client_secret, client_secret_expires_at, registration_access_token, ...registered } = client;
    expect({ secret: typeof client_secret, client_secret_expires_at, token: typeof registration_access_token }).toEqual({
      secret: 'string',
      client_secret_expires_at: 0,
      token: 'string',
    });
    expect(registered).toEqual(read);
  });

  it('section 2.2: PUT stores a redirect URI listed twice once, as registration does', async () => {
    const client = await register();
    const uris = ['https://rp.example/new', 'https://rp.example/cb', 'https://rp.example/new'];
    const updated = await manage('PUT', client.client_id, client.registration_access_token, {
      client_id: client.client_id,
      redirect_uris: uris,
      grant_types: ['authorization_code'],
    });
    expect({ status: updated.statusCode, redirect_uris: updated.json().redirect_uris }).toEqual({
      status: 200,
      redirect_uris: ['https://rp.example/new', 'https://rp.example/cb'],
    });
    expect((await server.deps.stores.applications.findByUid(client.client_id))!.redirectUris).toEqual([
      'https://rp.example/new',
      'https://rp.example/cb',
    ]);
  });

  it('section 2.2: PUT replaces the metadata under the same rules as registration', async () => {
    const client = await register({ client_name: 'Before', client_uri: 'https://rp.example/' });
    // Each read and update answers the next registration access token (section 3, issue 29 item 6).
    let current = client.registration_access_token;
    const rotating = async (method: 'GET' | 'PUT', payload?: object) => {
      const response = await manage(method, client.client_id, current, payload);
      if (response.statusCode === 200) current = response.json().registration_access_token;
      return response;
    };
    const updated = await rotating('PUT', {
      client_id: client.client_id,
      redirect_uris: ['https://rp.example/new'],
      grant_types: ['authorization_code', 'client_credentials'],
      client_name: 'After',
      scope: 'write',
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ client_name: 'After', redirect_uris: ['https://rp.example/new'], scope: 'write' });
    // A PUT replaces every field: what it leaves out is gone, not kept.
    expect(updated.json().client_uri).toBeUndefined();
    const { registration_access_token: _updateToken, ...afterUpdate } = updated.json();
    const { registration_access_token: _readToken, ...afterRead } = (await rotating('GET')).json();
    expect(afterRead).toEqual(afterUpdate);
    expect(await server.deps.stores.applications.findByUid(client.client_id)).toMatchObject({
      name: 'After',
      redirectUris: ['https://rp.example/new'],
      scopes: ['write'],
    });
    // The secret is unchanged by an update, and the new scope is what the client may ask for.
    await approve(client);
    const token = await tokenRequest(
      server.app,
      { grant_type: 'client_credentials', scope: 'write' },
      basic(client.client_id, client.client_secret),
    );
    expect(token.statusCode).toBe(200);

    const invalid = await rotating('PUT', {
      client_id: client.client_id,
      redirect_uris: ['http://rp.example/cb'],
    });
    expect({ status: invalid.statusCode, error: invalid.json().error }).toEqual({ status: 400, error: 'invalid_redirect_uri' });
    const wrongId = await rotating('PUT', {
      client_id: 'another',
      redirect_uris: ['https://rp.example/cb'],
    });
    expect({ status: wrongId.statusCode, error: wrongId.json().error }).toEqual({ status: 400, error: 'invalid_request' });
    // Section 2.2: a client_secret sent along must be the current one.
    const withSecret = (client_secret: unknown) =>
      rotating('PUT', {
        client_id: client.client_id,
        client_secret,
        redirect_uris: ['https://rp.example/new'],
        grant_types: ['authorization_code', 'client_credentials'],
      });
    for (const wrong of ['not-the-secret', 42]) {
      const refused = await withSecret(wrong);
      expect({ status: refused.statusCode, error: refused.json().error }).toEqual({ status: 400, error: 'invalid_request' });
    }
    expect((await withSecret(client.client_secret)).statusCode).toBe(200);
  });

  it("section 2.2 while OpenID Connect is off: an update leaves OpenID Connect's metadata as stored (RFC 7591 section 2: ignored)", async () => {
    const client = await register();
    const stored = (await server.deps.stores.applications.findByUid(client.client_id))!;
    // Set while OpenID Connect was on (registration or an admin).
    const openid = {
      subjectType: 'pairwise' as const,
      postLogoutRedirectUris: ['https://rp.example/bye'],
      backchannelLogoutUri: 'https://rp.example/backchannel',
      backchannelLogoutSessionRequired: true,
    };
    await server.deps.stores.applicationAdmin.update(stored.id, openid);
    const read = await manage('GET', client.client_id, client.registration_access_token);
    const { registration_access_token: token, client_secret: _secret, ...metadata } = read.json();
    expect(metadata).toMatchObject({ subject_type: 'pairwise', post_logout_redirect_uris: ['https://rp.example/bye'] });
    // The client sends back what it read, renamed, and then once more without any of it.
    const renamed = await manage('PUT', client.client_id, token, { ...metadata, client_name: 'Renamed' });
    expect(renamed.statusCode).toBe(200);
    const bare = { client_id: client.client_id, redirect_uris: ['https://rp.example/cb'], grant_types: ['authorization_code'] };
    expect((await manage('PUT', client.client_id, renamed.json().registration_access_token, bare)).statusCode).toBe(200);
    expect(await server.deps.stores.applications.findByUid(client.client_id)).toMatchObject({
      ...openid,
      grantTypes: ['authorization_code'],
    });
  });

  it('section 2.3: DELETE answers 204 and the client, with its tokens, is gone', async () => {
    const client = await register();
    await approve(client);
    const token = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.client_id, client.client_secret));
    expect(token.statusCode).toBe(200);
    const deleted = await manage('DELETE', client.client_id, client.registration_access_token);
    expect(deleted.statusCode).toBe(204);
    expect(await server.deps.stores.applications.findByUid(client.client_id)).toBeNull();
    expect(await server.deps.stores.accessTokens.findByToken(token.json().access_token)).toBeNull();
    expect((await manage('GET', client.client_id, client.registration_access_token)).statusCode).toBe(401);
  });

  // behaviour.md: of concurrent requests with one token exactly one succeeds. The deletion's check and write are one
  // statement: a read that rotated the token after the deletion looked it up wins, and the deletion deletes nothing.
  it('section 2.3: a DELETE whose token a concurrent GET rotated after its lookup is 401 and deletes nothing', async () => {
    const client = await register();
    const lookedUp = (await server.deps.stores.applications.findByUid(client.client_id))!;
    const read = await manage('GET', client.client_id, client.registration_access_token);
    expect(read.statusCode).toBe(200);
    await expect(deleteClient(server.deps, lookedUp)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(await server.deps.stores.applications.findByUid(client.client_id)).not.toBeNull();
    expect((await manage('DELETE', client.client_id, read.json().registration_access_token)).statusCode).toBe(204);
  });

  it('section 2: a wrong, absent or other client registration access token is 401 invalid_token', async () => {
    const client = await register();
    const other = await register();
    for (const token of ['wrong', null, other.registration_access_token]) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const payload = method === 'PUT' ? { client_id: client.client_id, redirect_uris: ['https://rp.example/cb'] } : undefined;
        const response = await manage(method, client.client_id, token, payload);
        // RFC 6750 section 3.1: the challenge names the error only when a token was sent.
        const challenge = token === null ? /^Bearer realm="[^"]*"$/ : /^Bearer realm="[^"]*", error="invalid_token", error_description="/;
        expect({ token, method, status: response.statusCode, error: response.json().error }).toEqual({
          token,
          method,
          status: 401,
          error: 'invalid_token',
        });
        expect(response.headers['www-authenticate']).toMatch(challenge);
      }
    }
    expect(await server.deps.stores.applications.findByUid(client.client_id)).not.toBeNull();
  });

  it('section 2: an application made by the admin cannot be managed here', async () => {
    const client = await register();
    await server.deps.stores.applicationAdmin.update((await server.deps.stores.applications.findByUid(client.client_id))!.id, {
      registeredBy: 'admin',
    });
    expect((await manage('GET', client.client_id, client.registration_access_token)).statusCode).toBe(401);
  });
});

describe(`RFC 7592 section 2.2 changes of the authentication method (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: CONFIG });
  });
  afterAll(() => server.close());

  // Each update answers the next registration access token (section 3, issue 29 item 6): kept on the client.
  const put = async (client: Record<string, string>, payload: object) => {
    const response = await server.app.inject({
      method: 'PUT',
      url: `/oauth/register/${client.client_id}`,
      headers: { ...JSON_HEADERS, ...bearer(client.registration_access_token!) },
      payload: { client_id: client.client_id, redirect_uris: ['https://rp.example/cb'], ...payload },
    });
    if (response.statusCode === 200) client.registration_access_token = response.json().registration_access_token;
    return response;
  };

  it('a public client made confidential gets a secret once; made public again it loses it', async () => {
    const client = (
      await registrationRequest(server.app, { redirect_uris: ['https://rp.example/cb'], token_endpoint_auth_method: 'none' })
    ).json();
    const confidential = await put(client, { token_endpoint_auth_method: 'client_secret_post' });
    expect(confidential.statusCode).toBe(200);
    expect(confidential.json()).toMatchObject({ token_endpoint_auth_method: 'client_secret_post', client_secret_expires_at: 0 });
    expect(typeof confidential.json().client_secret).toBe('string');
    const again = await put(client, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(again.json().client_secret).toBeUndefined();
    const backToPublic = await put(client, { token_endpoint_auth_method: 'none' });
    expect(backToPublic.json()).toMatchObject({ token_endpoint_auth_method: 'none' });
    expect((await server.deps.stores.applications.findByUid(client.client_id))!.secret).toBeNull();
  });
  it("an update with a jwks nested thousands deep is invalid_client_metadata and changes nothing (the admin's rules check it as text)", async () => {
    const client = (await registrationRequest(server.app, { redirect_uris: ['https://rp.example/cb'] })).json();
    const deep = `{"keys":[{"kty":"EC","x5c":${'['.repeat(6000)}${']'.repeat(6000)}}]}`;
    const payload = `{"client_id":"${client.client_id}","redirect_uris":["https://rp.example/other"],"token_endpoint_auth_method":"private_key_jwt","jwks":${deep}}`;
    const refused = await server.app.inject({
      method: 'PUT',
      url: `/oauth/register/${client.client_id}`,
      headers: { ...JSON_HEADERS, ...bearer(client.registration_access_token) },
      payload,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'The jwks is nested too deeply (at most 32 levels of objects and arrays).',
    });
    const stored = (await server.deps.stores.applications.findByUid(client.client_id))!;
    expect(stored.redirectUris).toEqual(['https://rp.example/cb']);
    expect(stored.tokenEndpointAuthMethod).toBe('client_secret_basic');
  });
});
