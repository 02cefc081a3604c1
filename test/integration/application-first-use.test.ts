import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, issueToken } from '../helpers/factories.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 19: the first token issued to a client sets oauth_applications.used_at, once; the cleanup of
// self-registered clients removes those that were never used.

describe(`POST /oauth/token marks the client used on its first token (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  const usedAt = async (id: number) =>
    (
      await server.testDatabase.database.sql.query<{ used_at: Date | null }>('SELECT used_at FROM oauth_applications WHERE id = $1', [id])
    )[0]!.used_at;

  it('a refused request leaves used_at null; the first token sets it; later tokens keep the first instant', async () => {
    const client = await createClient(server.deps);
    expect(await usedAt(client.application.id)).toBeNull();
    const refused = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, 'wrong'));
    expect(refused.statusCode).toBe(401);
    expect(await usedAt(client.application.id)).toBeNull();

    const before = server.clock.now.getTime();
    expect((await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!))).statusCode).toBe(200);
    const first = await usedAt(client.application.id);
    expect(first).toBeInstanceOf(Date);
    expect(first!.getTime()).toBeGreaterThanOrEqual(before - 1000);

    server.clock.advance(60);
    expect((await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!))).statusCode).toBe(200);
    expect(await usedAt(client.application.id)).toEqual(first);
    // The record this instance serves is the fresh one.
    expect((await server.deps.stores.applications.findById(client.application.id))!.usedAt).toEqual(first);
  });

  it('a refresh marks a client whose earlier tokens were made elsewhere (e.g. by the admin)', async () => {
    const client = await createClient(server.deps, { confidential: false });
    const user = await createUser(server.deps);
    const issued = await issueToken(server.deps, { application: client.application, resourceOwnerId: user.id, withRefreshToken: true });
    expect(await usedAt(client.application.id)).toBeNull();
    const refreshed = await tokenRequest(server.app, {
      grant_type: 'refresh_token',
      refresh_token: issued.refreshToken!,
      client_id: client.uid,
    });
    expect(refreshed.statusCode).toBe(200);
    expect(await usedAt(client.application.id)).toBeInstanceOf(Date);
  });
});
