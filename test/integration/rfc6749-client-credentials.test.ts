import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type TestClient } from '../helpers/factories.js';
import {
  basic,
  bearer,
  during,
  expectNoStore,
  expectOAuthError,
  expectSecondsLeft,
  expectTokenResponse,
  isActive,
  OPAQUE_TOKEN,
  TEXT,
  tokenInfoRequest,
  tokenRequest,
} from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 6749 section 4.4: the client credentials grant, with reference 5.5 / 21.7 and SPEC 3.1 and 8.

// One database for the file; each describe's server has its own config on it.
let base: TestServer;
beforeAll(async () => {
  base = await buildTestServer({ config: { optionalScopes: ['write'] } });
});
afterAll(() => base.close());

describe(`POST /oauth/token grant_type=client_credentials (RFC 6749 section 4.4) on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    server = base;
    client = await createClient(server.deps);
  });

  const asClient = () => basic(client.uid, client.secret!);

  it('client_secret_basic: 200 with access_token, token_type, expires_in, scope and created_at, no refresh_token (RFC 6749 4.4.3)', async () => {
    const sent = await during(server.clock, () => tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient()));
    expectTokenResponse(sent, { access_token: expect.stringMatching(OPAQUE_TOKEN), scope: 'read' });
    expect(sent.response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('client_secret_post: the same token response (RFC 6749 section 2.3.1)', async () => {
    const response = await tokenRequest(server.app, {
      grant_type: 'client_credentials',
      client_id: client.uid,
      client_secret: client.secret!,
    });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json()).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'scope', 'token_type']);
  });

  it('Basic plus the same client_id in the body is one client, not two methods (reference 21.7 #13)', async () => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials', client_id: client.uid }, asClient());
    expect(response.statusCode).toBe(200);
  });

  it('the token has no resource owner and belongs to the client (GET /oauth/token/info)', async () => {
    const { access_token, created_at } = (await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient())).json();
    const { response, from, to } = await during(server.clock, () => tokenInfoRequest(server.app, bearer(access_token)));
    const info = response.json();
    expect(info).toEqual({
      resource_owner_id: null,
      scope: ['read'],
      expires_in: expect.any(Number),
      application: { uid: client.uid },
      created_at,
    });
    // created_at is whole seconds: the token was created within [created_at, created_at + 1).
    expectSecondsLeft(info.expires_in, (created_at + 7200) * 1000, from - 1000, to);
  });

  it('a requested optional scope is granted (RFC 6749 section 3.3)', async () => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'write' }, asClient());
    expect(response.json()).toMatchObject({ scope: 'write' });
  });

  it('several requested scopes are granted, duplicates removed', async () => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read  write read' }, asClient());
    expect(response.json()).toMatchObject({ scope: 'read write' });
  });

  it('an unknown scope is invalid_scope', async () => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read admin' }, asClient());
    expectOAuthError(response, 400, 'invalid_scope', TEXT.invalidScope);
  });

  it('a scope outside the application scopes is invalid_scope (reference 8.2)', async () => {
    const limited = await createClient(server.deps, { scopes: 'read' });
    const response = await tokenRequest(
      server.app,
      { grant_type: 'client_credentials', scope: 'write' },
      basic(limited.uid, limited.secret!),
    );
    expectOAuthError(response, 400, 'invalid_scope', TEXT.invalidScope);
  });

  it('no scope requested: the default scopes the application also lists (reference 8.3)', async () => {
    const both = await createClient(server.deps, { scopes: 'write read' });
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(both.uid, both.secret!));
    expect(response.json()).toMatchObject({ scope: 'read' });
  });

  it('no scope requested and the application lists none of the defaults: invalid_scope (reference 8.3)', async () => {
    const writer = await createClient(server.deps, { scopes: 'write' });
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(writer.uid, writer.secret!));
    expectOAuthError(response, 400, 'invalid_scope', TEXT.invalidScope);
  });

  it('a public client is refused with 400 unauthorized_client (RFC 6749 section 4.4, SPEC 8)', async () => {
    const publicClient = await createClient(server.deps, { confidential: false });
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials', client_id: publicClient.uid });
    expectOAuthError(response, 400, 'unauthorized_client', TEXT.unauthorizedClient);
    expectNoStore(response);
  });

  it('no client authentication is 401 invalid_client (RFC 6749 section 4.4.2)', async () => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' });
    expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
  });

  it('each request issues a new token and earlier ones stay valid by default', async () => {
    const first = (await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient())).json();
    const second = (await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient())).json();
    expect(second.access_token).not.toBe(first.access_token);
    expect(await isActive(server.app, first.access_token, asClient())).toBe(true);
    expect(await isActive(server.app, second.access_token, asClient())).toBe(true);
  });
});

describe(`client_credentials with revokePreviousClientCredentialsToken (reference 5.5) on ${backend}`, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await buildTestServer({
      testDatabase: base.testDatabase,
      config: { optionalScopes: ['write'], revokePreviousClientCredentialsToken: true },
    });
  });
  afterAll(() => server.close());

  it('a new token revokes the previous one with the same scopes; other scopes and other clients are untouched', async () => {
    const client = await createClient(server.deps);
    const otherClient = await createClient(server.deps);
    const asClient = basic(client.uid, client.secret!);
    const issue = async (scope: string, headers = asClient) =>
      (await tokenRequest(server.app, { grant_type: 'client_credentials', scope }, headers)).json().access_token as string;

    const first = await issue('read');
    const withWrite = await issue('write');
    const otherClients = await issue('read', basic(otherClient.uid, otherClient.secret!));
    const second = await issue('read');

    expect(await isActive(server.app, first, asClient)).toBe(false);
    expect(await isActive(server.app, second, asClient)).toBe(true);
    expect(await isActive(server.app, withWrite, asClient)).toBe(true);
    expect(await isActive(server.app, otherClients, basic(otherClient.uid, otherClient.secret!))).toBe(true);
  });

  it('requests at once leave one token live, the last one stored (each revoked the same previous token before)', async () => {
    const client = await createClient(server.deps);
    const asClient = basic(client.uid, client.secret!);
    const tokens = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const response = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read' }, asClient);
        expect(response.statusCode).toBe(200);
        return response.json().access_token as string;
      }),
    );
    const live = [];
    for (const token of tokens) if (await isActive(server.app, token, asClient)) live.push(token);
    expect(live).toHaveLength(1);
  });
});

describe(`client_credentials with reuseAccessToken (reference 17.6; needs hashTokens false) on ${backend}`, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await buildTestServer({
      testDatabase: base.testDatabase,
      config: { optionalScopes: ['write'], reuseAccessToken: true, hashTokens: false },
    });
  });
  afterAll(() => server.close());

  it('a second request returns the live token with the seconds it has left', async () => {
    const client = await createClient(server.deps);
    const first = (await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!))).json();
    server.clock.advance(100);
    const { response, from, to } = await during(server.clock, () =>
      tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!)),
    );
    const second = response.json();
    expect(second).toEqual({ ...first, expires_in: expect.any(Number) });
    expectSecondsLeft(second.expires_in, (first.created_at + 7200) * 1000, from - 1000, to);
    expect(second.expires_in).toBeLessThanOrEqual(7100);
  });

  it('different scopes, or an expired token, get a new token', async () => {
    const client = await createClient(server.deps);
    const asClient = basic(client.uid, client.secret!);
    const first = (await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient)).json();
    const withWrite = (await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'write' }, asClient)).json();
    expect(withWrite.access_token).not.toBe(first.access_token);
    server.clock.advance(7200);
    const afterExpiry = (await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient)).json();
    expect(afterExpiry.access_token).not.toBe(first.access_token);
    expect(afterExpiry.expires_in).toBe(7200);
  });
});
