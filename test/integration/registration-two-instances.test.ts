import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, locationParameters, publicCodeFlow, signedIn } from '../helpers/end-user.js';
import { createRegistrationToken } from '../../src/oauth/clients/registration/registration-tokens.js';
import { basic, bearer, tokenRequest } from '../helpers/oauth-requests.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 19, SPEC 9: a client registered (RFC 7591) through one instance works at once through another on the same
// database, and its deletion (RFC 7592) through one is seen by the other within the application cache's TTL
// (src/storage/application-cache.ts: misses are not cached; a row read is kept 5 s, createStores applicationCacheSeconds).

// Issue 29: self-registered clients get client_credentials only as the operator allows it, here through the initial
// access token every registration of this file presents.
const CONFIG = { registration: { policy: 'initialAccessToken' as const }, defaultScopes: ['read'] };
const JSON_HEADERS = { 'content-type': 'application/json' };
const CALLBACK = 'http://127.0.0.1:8765/callback';
const APPLICATION_CACHE_SECONDS = 5;

describe(`dynamic client registration across two instances on one database (${backend})`, () => {
  let db: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let initialToken: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await buildTestServer({ testDatabase: db, config: CONFIG });
    b = await buildTestServer({ testDatabase: db, config: CONFIG });
    await createUser(a.deps, 'alice');
    const options = { uses: null, expiresInSeconds: null, grantTypes: ['client_credentials'] };
    initialToken = (await createRegistrationToken(a.deps, options)).plainToken;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  const register = async (server: TestServer, payload: object) => {
    const headers = { ...JSON_HEADERS, ...bearer(initialToken) };
    const response = await server.app.inject({ method: 'POST', url: '/oauth/register', headers, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const manage = (server: TestServer, method: 'GET' | 'DELETE', clientId: string, token: string) =>
    server.app.inject({ method, url: `/oauth/register/${clientId}`, headers: bearer(token) });

  it('a public client registered at A runs authorize (PKCE) and the code exchange at B at once, and B reads its registration (RFC 7592 GET)', async () => {
    const client = await register(a, {
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      client_name: 'Registered at A',
    });

    const agent = await signedIn(b.app, 'alice');
    const { consent, approved, token } = await publicCodeFlow(b.app, agent, {
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      scope: 'read',
      state: 'at-b',
    });
    expect(consent.body).toContain('Registered at A');
    expect(approved.statusCode).toBe(303);
    expect(locationParameters(approved).get('state')).toBe('at-b');
    expect(token?.statusCode, token?.body).toBe(200);
    expect(token!.json()).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    expect(token!.json().refresh_token).toEqual(expect.any(String));

    const read = await manage(b, 'GET', client.client_id, client.registration_access_token);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ client_id: client.client_id, client_name: 'Registered at A', redirect_uris: [CALLBACK] });
  });

  it('a confidential client registered at A gets a client_credentials token at B at once', async () => {
    const client = await register(a, {
      redirect_uris: [CALLBACK],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const token = await tokenRequest(b.app, { grant_type: 'client_credentials' }, basic(client.client_id, client.client_secret));
    expect(token.statusCode, token.body).toBe(200);
    expect(token.json()).toMatchObject({ token_type: 'Bearer' });
  });

  /**
   * A confidential client registered at A, and `cachedAtB` to make B hold it in its application cache: B's first
   * token marks the client used (ApplicationStore.markUsed), which makes B's cache forget the row; the second
   * lookup caches it.
   */
  const confidential = async () => {
    const client = await register(a, {
      redirect_uris: [CALLBACK],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const credentials = basic(client.client_id, client.client_secret);
    const tokenAt = (server: TestServer) => tokenRequest(server.app, { grant_type: 'client_credentials' }, credentials);
    const cachedAtB = async () => {
      expect((await tokenAt(b)).statusCode).toBe(200);
      expect((await tokenAt(b)).statusCode).toBe(200);
    };
    return { client, tokenAt, cachedAtB };
  };

  it(`a DELETE at A (RFC 7592 section 2.3): A refuses the client at once, B once its cached row is older than the TTL (${APPLICATION_CACHE_SECONDS} s)`, async () => {
    const { client, tokenAt, cachedAtB } = await confidential();
    await cachedAtB();

    expect((await manage(a, 'DELETE', client.client_id, client.registration_access_token)).statusCode).toBe(204);
    const refusedAtA = await tokenAt(a);
    expect(refusedAtA.statusCode).toBe(401);
    expect(refusedAtA.json()).toMatchObject({ error: 'invalid_client' });
    expect((await manage(a, 'GET', client.client_id, client.registration_access_token)).statusCode).toBe(401);

    await new Promise((resolve) => setTimeout(resolve, APPLICATION_CACHE_SECONDS * 1000 + 100));
    const refusedAtB = await tokenAt(b);
    expect(refusedAtB.statusCode).toBe(401);
    expect(refusedAtB.json()).toMatchObject({ error: 'invalid_client' });
    // RFC 7592 at B reads the application through the same cache, so it too refuses once the TTL has passed.
    expect((await manage(b, 'GET', client.client_id, client.registration_access_token)).statusCode).toBe(401);
  });

  it('a client B has not cached is refused by B at once after a DELETE at A (misses are not cached)', async () => {
    const { client, tokenAt } = await confidential();
    expect((await manage(a, 'DELETE', client.client_id, client.registration_access_token)).statusCode).toBe(204);
    expect((await tokenAt(b)).json()).toMatchObject({ error: 'invalid_client' });
    expect((await manage(b, 'GET', client.client_id, client.registration_access_token)).statusCode).toBe(401);
  });

  // Within the TTL, B's cached row passes client authentication and the INSERT of the new token violates
  // oauth_access_tokens' foreign key to the deleted oauth_applications row: the token endpoint answers that as an
  // unknown client (ApplicationGone -> 401 invalid_client), not a 500.
  it('within the TTL after a DELETE at A, B answers for its cached client with invalid_client, never a 500', async () => {
    const { client, tokenAt, cachedAtB } = await confidential();
    await cachedAtB();
    expect((await manage(a, 'DELETE', client.client_id, client.registration_access_token)).statusCode).toBe(204);
    const atB = await tokenAt(b);
    expect(atB.statusCode, atB.body).toBe(401);
    expect(atB.json()).toMatchObject({ error: 'invalid_client' });
  });

  // The same at /oauth/authorize: B showed the consent page (the client is in its cache), A deletes the client, and
  // the approval's code INSERT violates oauth_access_grants' foreign key: the unknown-client error page, no redirect.
  it('within the TTL after a DELETE at A, approving at B shows the unknown-client page, never a 500 or a redirect', async () => {
    const client = await register(a, { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', client_name: 'Deleted at A' });
    const agent = await signedIn(b.app, 'alice');
    const deleteAtA = async () => {
      expect((await manage(a, 'DELETE', client.client_id, client.registration_access_token)).statusCode).toBe(204);
    };
    const { approved } = await publicCodeFlow(
      b.app,
      agent,
      { client_id: client.client_id, redirect_uri: CALLBACK, scope: 'read', state: 's' },
      deleteAtA,
    );
    expect(approved.statusCode, approved.body).toBe(401);
    expect(approved.headers.location).toBeUndefined();
    expect(approved.body).toContain('unknown client');
  });
});
