import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCode, createUser, type TestClient } from '../helpers/factories.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// SPEC 9: "two instances on one database behave as one service" — nothing that matters lives in one process.
describe(`two service instances on one database (${backend})`, () => {
  let db: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await buildTestServer({ testDatabase: db });
    b = await buildTestServer({ testDatabase: db });
    client = await createClient(a.deps);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  const post = (server: TestServer, url: string, params: Record<string, string>) =>
    server.app.inject({
      method: 'POST',
      url,
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
      payload: form(params),
    });

  it('a token issued by one is introspected, refreshed and revoked through the other', async () => {
    const user = await createUser(a.deps);
    const grant = await createCode(a.deps, { application: client.application, resourceOwnerId: user.id });
    const issued = await post(a, '/oauth/token', { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri });
    expect(issued.statusCode).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = issued.json();

    expect((await post(b, '/oauth/introspect', { token: accessToken })).json()).toMatchObject({ active: true, client_id: client.uid });

    const refreshed = await post(b, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(refreshed.statusCode).toBe(200);
    const next = refreshed.json();
    expect((await post(a, '/oauth/introspect', { token: accessToken })).json()).toEqual({ active: false });
    expect((await post(a, '/oauth/introspect', { token: next.access_token })).json()).toMatchObject({ active: true });

    expect((await post(a, '/oauth/revoke', { token: next.access_token })).statusCode).toBe(200);
    // Revocation is visible on every instance at once: no token state is cached in a process.
    expect((await post(b, '/oauth/introspect', { token: next.access_token })).json()).toEqual({ active: false });
    expect((await post(b, '/oauth/token', { grant_type: 'refresh_token', refresh_token: next.refresh_token })).statusCode).toBe(400);
  });

  it('a code exchanged on one instance is refused on the other, and the replay revokes what it issued', async () => {
    const user = await createUser(a.deps);
    const grant = await createCode(a.deps, { application: client.application, resourceOwnerId: user.id });
    const exchange = { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri };
    const issued = (await post(a, '/oauth/token', exchange)).json();
    expect((await post(b, '/oauth/token', exchange)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await post(a, '/oauth/introspect', { token: issued.access_token })).json()).toEqual({ active: false });
  });

  it('a client created through one instance authenticates on the other at once', async () => {
    const fresh = await createClient(a.deps);
    const response = await b.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(fresh.uid, fresh.secret!) },
      payload: form({ grant_type: 'client_credentials' }),
    });
    expect(response.statusCode).toBe(200);
  });
});
