import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDeps } from '../../src/cli/context.js';
import { buildServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/loader.js';
import { createDatabase, databaseOptions, type Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { createStores } from '../../src/storage/stores.js';
import { pgbouncerUnavailable, startPgBouncer, type PgBouncer } from '../../scripts/lib/pgbouncer.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { basicAuth, form, FORM } from '../helpers/test-server.js';
import type { FastifyInstance } from 'fastify';

// Issue 20: PgBouncer 1.18 in transaction mode gives each transaction any server connection, so a statement
// prepared by name on one is unknown (or already known) on the next. databasePreparedStatements: false sends
// the same statements unnamed; databaseDirectUrl keeps session-level work (migrations and their advisory lock) off it.
const skip = pgbouncerUnavailable();

describe.skipIf(skip !== null)(`behind PgBouncer in transaction mode${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let postgres: PrivatePostgres;
  let bouncer: PgBouncer;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    // One server connection for many clients: any two clients' transactions meet on it.
    bouncer = await startPgBouncer(postgres.url, 1);
  }, 60_000);
  afterAll(async () => {
    await bouncer?.stop();
    await postgres?.remove();
  });

  const NAMED = { name: 'pgbouncer_probe', text: 'SELECT $1::int + 1 AS n' };
  const concurrently = (database: Database) =>
    Promise.allSettled(Array.from({ length: 8 }, (_, i) => database.sql.query<{ n: number }>(NAMED, [i])));

  it('named prepared statements fail there (the problem the setting exists for)', async () => {
    const database = await createDatabase({ databaseUrl: bouncer.url, dataDir: 'unused', poolSize: 4, preparedStatements: true });
    try {
      const results = await concurrently(database);
      const failures = results.filter((result) => result.status === 'rejected');
      expect(failures.length).toBeGreaterThan(0);
      expect(String((failures[0] as PromiseRejectedResult).reason)).toMatch(
        /prepared statement "pgbouncer_probe" (already exists|does not exist)/,
      );
    } finally {
      await database.close();
    }
  });

  it('with databasePreparedStatements false the same statements go unnamed and all succeed', async () => {
    const database = await createDatabase({ databaseUrl: bouncer.url, dataDir: 'unused', poolSize: 4, preparedStatements: false });
    try {
      const results = await concurrently(database);
      expect(results.map((result) => (result.status === 'fulfilled' ? result.value[0]!.n : String(result.reason)))).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8,
      ]);
    } finally {
      await database.close();
    }
  });

  describe('the service on PgBouncer, with databaseDirectUrl for session-level work', () => {
    let database: Database;
    let app: FastifyInstance;
    let client: TestClient;

    beforeAll(async () => {
      const config = loadConfig({
        input: {
          log: { level: 'silent' },
          databaseUrl: bouncer.url,
          databasePreparedStatements: false,
          databaseDirectUrl: postgres.url,
          databasePoolSize: 6,
        },
      });
      database = await createDatabase(databaseOptions(config));
      await migrate(database);
      const stores = createStores(database, { applicationCacheSeconds: 0 });
      app = await buildServer({ config, database, stores });
      client = await createClient(domainDeps(database, config, stores));
    }, 60_000);
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    const post = (url: string, payload: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url,
        headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
        payload: form(payload),
      });

    it('runs session-level work on the direct URL, not through the pooler', async () => {
      const [row] = await database.withConnection((sql) =>
        sql.query<{ name: string }>("SELECT current_setting('application_name') AS name"),
      );
      expect(row!.name).toBe('oauth-service sessions');
    });

    it('issues, introspects and revokes tokens under concurrency without an error', async () => {
      const statuses: number[] = [];
      const tokens: string[] = [];
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          for (let i = 0; i < 5; i += 1) {
            const issued = await post('/oauth/token', { grant_type: 'client_credentials' });
            statuses.push(issued.statusCode);
            const token = (issued.json() as { access_token: string }).access_token;
            tokens.push(token);
            const active = await post('/oauth/introspect', { token });
            statuses.push(active.statusCode);
            expect(active.json()).toMatchObject({ active: true });
            statuses.push((await post('/oauth/revoke', { token })).statusCode);
            expect((await post('/oauth/introspect', { token })).json()).toEqual({ active: false });
          }
        }),
      );
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(new Set(tokens).size).toBe(30);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    }, 60_000);
  });
});
