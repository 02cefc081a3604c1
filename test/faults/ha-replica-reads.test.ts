import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/app.js';
import { domainDeps } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config/loader.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import { createDatabase, type Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { createStores } from '../../src/storage/stores.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { startPrivatePostgres, startStandby, type PrivatePostgres } from '../helpers/private-postgres.js';
import { basicAuth, form, FORM } from '../helpers/test-server.js';

// Issue 20: while a failover leaves no primary, introspection keeps answering from the synchronous standby,
// client authentication included (application-repository.ts reads applications on database.readSql). What was
// changed before the outage still holds there: every commit of the service waited for the standby to apply it.
describe('introspection with the primary gone: clients authenticated on the synchronous standby', () => {
  let primary: PrivatePostgres;
  let standby: PrivatePostgres;
  let database: Database;
  let app: FastifyInstance;
  let deps: OAuthDeps;
  let client: TestClient;
  let deleted: TestClient;

  beforeAll(async () => {
    primary = await startPrivatePostgres();
    standby = await startStandby(primary);
    database = await createDatabase({ databaseUrl: primary.url, databaseReadUrl: standby.url, dataDir: 'unused', poolSize: 4 });
    await migrate(database);
    const config = loadConfig({ input: { log: { level: 'silent' }, databaseUrl: primary.url, databaseReadUrl: standby.url } });
    // No application cache: every request looks its client up in the database.
    const stores = createStores(database, { applicationCacheSeconds: 0 });
    deps = domainDeps(database, config, stores);
    app = await buildServer({ config, database, stores });
    client = await createClient(deps);
    deleted = await createClient(deps);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await database?.close().catch(() => undefined);
    await standby?.remove();
    await primary?.remove();
  });

  const post = (url: string, credentials: { uid: string; secret: string }, params: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url,
      headers: { ...FORM, authorization: basicAuth(credentials.uid, credentials.secret) },
      payload: form(params),
    });
  const credentials = (of: TestClient) => ({ uid: of.uid, secret: of.secret! });

  it('answers introspection from the standby, and refuses a client deleted or a secret wrong before the outage', async () => {
    const token = (await post('/oauth/token', credentials(client), { grant_type: 'client_credentials' })).json<{ access_token: string }>()
      .access_token;
    const revoked = (await post('/oauth/token', credentials(client), { grant_type: 'client_credentials' })).json<{ access_token: string }>()
      .access_token;
    expect((await post('/oauth/revoke', credentials(client), { token: revoked })).statusCode).toBe(200);
    expect(await deps.stores.applicationAdmin.delete(deleted.application.id)).toBe(true);

    await primary.stop();
    try {
      const live = await post('/oauth/introspect', credentials(client), { token });
      expect(live.statusCode).toBe(200);
      expect(live.json()).toMatchObject({ active: true, client_id: client.uid });
      expect((await post('/oauth/introspect', credentials(client), { token: revoked })).json()).toEqual({ active: false });
      // The deletion and the secret are what the primary had: the standby applied every commit before its answer.
      expect((await post('/oauth/introspect', credentials(deleted), { token })).statusCode).toBe(401);
      expect((await post('/oauth/introspect', { uid: client.uid, secret: 'not-the-secret' }, { token })).statusCode).toBe(401);
      // Writes need the primary: 503, not 500.
      expect((await post('/oauth/token', credentials(client), { grant_type: 'client_credentials' })).statusCode).toBe(503);
    } finally {
      await primary.start();
    }
  }, 90_000);
});
