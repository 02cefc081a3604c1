import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSigningKeys, retireSigningKey, rotateSigningKey } from '../../src/oauth/keys/signing-key-service.js';
import { createDatabase } from '../../src/storage/database.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// databasePoolSize 1 on PostgreSQL: the work done under an advisory lock (dynamic registration's cap, signing-key
// rotation) must run on the connection that holds the lock; taking the lock on one pooled connection and working
// on another would wait forever for a second connection. Each step is bounded, so a regression fails, not hangs.

const WITHIN_MS = 15_000;

function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${WITHIN_MS} ms on a pool of one connection`)), WITHIN_MS);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL with databasePoolSize 1', () => {
  let owner: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    owner = await createTestDatabase();
    const single = await createDatabase({ databaseUrl: owner.url, dataDir: 'unused', poolSize: 1 });
    server = await buildTestServer({
      config: {
        databasePoolSize: 1,
        registration: { policy: 'open', perAddressPerMinute: 0, maxOpenRegistrations: 3 },
        keys: { algorithms: ['ES256'] },
      },
      env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex') },
      testDatabase: { database: single, url: owner.url, drop: () => single.close() },
    });
  });
  afterAll(async () => {
    await server?.close();
    await server?.testDatabase.drop();
    await owner?.drop();
  });

  const register = () =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: { client_name: 'Pool of one', redirect_uris: ['https://rp.example/cb'], token_endpoint_auth_method: 'none' },
    });

  it('POST /oauth/register completes, concurrent registrations too, and maxOpenRegistrations still holds', async () => {
    expect((await within(register(), 'a registration')).statusCode).toBe(201);
    const statuses = (await within(Promise.all([register(), register(), register()]), 'three concurrent registrations'))
      .map((response) => response.statusCode)
      .sort();
    expect(statuses).toEqual([201, 201, 400]);
    expect(await server.deps.stores.registrations.countLiveClients('dynamic', new Date(0))).toBe(3);
  });

  it('signing keys are made, rotated and retired', async () => {
    const made = await within(ensureSigningKeys(server.deps), 'making the first keys');
    expect(made.map((key) => key.alg)).toContain('ES256');
    const rotated = await within(rotateSigningKey(server.deps, 'ES256'), 'a rotation');
    const { retired } = await within(retireSigningKey(server.deps, rotated.kid), 'a retirement');
    expect(retired).toBe(true);
    expect((await server.deps.stores.signingKeys.list()).find((key) => key.kid === rotated.kid)?.retiredAt).not.toBeNull();
  });
});
