import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, bearer, introspectRequest, type Headers } from '../helpers/oauth-requests.js';
import { openIdServer } from '../helpers/openid.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// RFC 9701 section 5: the signed answer is addressed (aud) to the requester introspect() authenticated; it is
// not looked up again, so the JWT answer costs the queries of the JSON one.

const asksJwt: Headers = { accept: 'application/token-introspection+jwt' };

describe(`POST /oauth/introspect as a JWT reuses the authenticated requester (${backend})`, () => {
  let db: TestDatabase;
  let server: TestServer;
  let client: TestClient;
  let queries: MockInstance;
  beforeAll(async () => {
    db = await createTestDatabase();
    // Observes the service's SQL (every call goes through); introspection reads tokens through readSql.
    queries = vi.spyOn(db.database.readSql, 'query');
    server = await openIdServer({ testDatabase: db });
    client = await createClient(server.deps);
  });
  afterAll(async () => {
    await server.close();
    await db.drop();
  });

  const queriesDuring = async (send: () => Promise<unknown>) => {
    const before = queries.mock.calls.length;
    await send();
    return queries.mock.calls.length - before;
  };

  it('a Bearer requester: the JWT answer (aud its client_id) takes no more queries than the JSON answer', async () => {
    const own = await issueToken(server.deps, { application: client.application });
    const introspected = await issueToken(server.deps, { application: client.application });
    const ask = (accept: Headers = {}) =>
      introspectRequest(server.app, { token: introspected.accessToken }, { ...bearer(own.accessToken), ...accept });
    // Warm: the application cache and the signing key.
    await ask();
    const signed = await ask(asksJwt);
    expect(decodeJwt(signed.body)).toMatchObject({ aud: client.uid, token_introspection: { active: true } });
    const json = await queriesDuring(() => ask());
    const jwt = await queriesDuring(() => ask(asksJwt));
    expect(json).toBeGreaterThan(0);
    expect(jwt).toBe(json);
  });

  it('a Basic requester: aud is the authenticated client_id', async () => {
    const introspected = await issueToken(server.deps, { application: client.application });
    const signed = await introspectRequest(
      server.app,
      { token: introspected.accessToken },
      { ...basic(client.uid, client.secret!), ...asksJwt },
    );
    expect(decodeJwt(signed.body)).toMatchObject({ aud: client.uid, token_introspection: { active: true } });
  });
});
