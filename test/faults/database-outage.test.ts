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

// SPEC 9: "a database outage gives 503 and the service recovers by itself".
describe('PostgreSQL stops and starts again under the service', () => {
  let postgres: PrivatePostgres;
  let database: Database;
  let app: FastifyInstance;
  let client: TestClient;
  let token: string;

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

  const introspect = () =>
    app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
      payload: form({ token }),
    });
  const issue = () =>
    app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
      payload: form({ grant_type: 'client_credentials' }),
    });

  it('answers 503 temporarily_unavailable (never 500, never hanging) while the database is down, and recovers without a restart', async () => {
    expect((await introspect()).json()).toMatchObject({ active: true });
    const before = await database.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_access_tokens');

    await postgres.stop();
    const during = await Promise.all([introspect(), issue(), introspect(), app.inject({ method: 'GET', url: '/readyz' })]);
    for (const response of during) expect(response.statusCode).toBe(503);
    expect(during[0]!.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description:
        'The authorization server is currently unable to handle the request due to a temporary overloading or maintenance of the server.',
    });
    expect(during[0]!.headers['retry-after']).toBe('5');

    await postgres.start();
    let recovered = await introspect();
    for (let attempt = 0; attempt < 20 && recovered.statusCode !== 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      recovered = await introspect();
    }
    expect(recovered.statusCode).toBe(200);
    expect(recovered.json()).toMatchObject({ active: true });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // The token request that failed during the outage wrote nothing.
    const after = await database.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_access_tokens');
    expect(after[0]!.n).toBe(before[0]!.n);
    expect((await issue()).statusCode).toBe(200);
  }, 90_000);
});
