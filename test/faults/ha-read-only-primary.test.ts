import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDeps } from '../../src/cli/context.js';
import { buildServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/loader.js';
import { createDatabase, type Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { createStores } from '../../src/storage/stores.js';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { basicAuth, form, FORM } from '../helpers/test-server.js';
import type { FastifyInstance } from 'fastify';

// Issue 20: a demoted Patroni leader keeps its connections for a moment and answers every write with
// "cannot execute ... in a read-only transaction" (SQLSTATE 25006). The same happens to a primary put into
// read-only mode, which a test can do without a cluster. Writes must answer 503 with Retry-After (never 500),
// /readyz 503, reads keep working, and all of it recovers without a restart once the primary is writable. A
// write refused for less than the retry budget (a switchover) is sent again and answered 200 (failover-retry.ts).
describe('the primary turns read-only under the service, then writable again', () => {
  let postgres: PrivatePostgres;
  let database: Database;
  let app: FastifyInstance;
  let client: TestClient;
  let token: string;

  const setReadOnly = async (on: boolean) => {
    const admin = new pg.Client({ connectionString: postgres.superuserUrl });
    await admin.connect();
    try {
      await admin.query(on ? 'ALTER SYSTEM SET default_transaction_read_only = on' : 'ALTER SYSTEM RESET default_transaction_read_only');
      await admin.query('SELECT pg_reload_conf()');
    } finally {
      await admin.end();
    }
    // pg_reload_conf() signals the backends; give them a moment to read the file.
    await new Promise((resolve) => setTimeout(resolve, 300));
  };

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    database = await createDatabase({ databaseUrl: postgres.url, dataDir: 'unused', poolSize: 4 });
    await migrate(database);
    const config = loadConfig({ input: { log: { level: 'silent' }, databaseUrl: postgres.url } });
    const stores = createStores(database, { applicationCacheSeconds: 0 });
    const deps = domainDeps(database, config, stores);
    app = await buildServer({ config, database, stores });
    client = await createClient(deps);
    token = (await issueToken(deps, { application: client.application })).accessToken;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await database?.close().catch(() => undefined);
    await postgres?.remove();
  });

  const authorization = () => basicAuth(client.uid, client.secret!);
  const introspect = () =>
    app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: { ...FORM, authorization: authorization() },
      payload: form({ token }),
    });
  const issue = () =>
    app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: authorization() },
      payload: form({ grant_type: 'client_credentials' }),
    });
  const revoke = (value: string) =>
    app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      headers: { ...FORM, authorization: authorization() },
      payload: form({ token: value }),
    });
  const readyz = () => app.inject({ method: 'GET', url: '/readyz' });

  it('answers writes 503 temporarily_unavailable with Retry-After, /readyz 503, keeps answering reads, and recovers by itself', async () => {
    expect((await issue()).statusCode).toBe(200);
    expect((await readyz()).statusCode).toBe(200);

    await setReadOnly(true);
    try {
      const writes = [await issue(), await issue(), await revoke(token)];
      for (const response of writes) {
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ error: 'temporarily_unavailable' });
        expect(response.headers['retry-after']).toBe('5');
      }
      const ready = await readyz();
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', detail: 'no writable primary (the database is read-only)' });
      // Reads need no primary: introspection still answers, and the refused revocation did not happen.
      const read = await introspect();
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({ active: true });
    } finally {
      await setReadOnly(false);
    }

    expect((await readyz()).statusCode).toBe(200);
    expect((await issue()).statusCode).toBe(200);
    expect((await revoke(token)).statusCode).toBe(200);
    expect((await introspect()).json()).toEqual({ active: false });
  }, 90_000);

  it('sends a refused write again until the primary takes it, within a few seconds (a switchover): 200, stored once', async () => {
    const count = async () => (await database.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_access_tokens'))[0]!.n;
    const before = await count();
    await setReadOnly(true);
    // 25006 proves the INSERT wrote nothing (failover-retry.ts): the request waits instead of answering 503.
    const pending = issue();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await setReadOnly(false);
    const response = await pending;
    expect(response.statusCode).toBe(200);
    const issued = response.json<{ access_token: string }>().access_token;
    expect(await count()).toBe(before + 1);
    const read = await app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: { ...FORM, authorization: authorization() },
      payload: form({ token: issued }),
    });
    expect(read.json()).toMatchObject({ active: true });
  }, 60_000);
});
