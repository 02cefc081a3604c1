import { PassThrough } from 'node:stream';
import { domainDeps } from '../../src/cli/context.js';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/loader.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import { createDatabase } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { runCliInProcess } from '../helpers/cli.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { scrapeMetrics } from '../helpers/metrics-scrape.js';
import { startPrivatePostgres, startStandby, type PrivatePostgres } from '../helpers/private-postgres.js';
import { basicAuth, form, FORM } from '../helpers/test-server.js';

interface Instance {
  app: FastifyInstance;
  deps: OAuthDeps;
  log: string[];
}

const TOKEN_LOOKUP = 'FROM oauth_access_tokens WHERE token = $1';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sqlOn<Row>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as Row[];
  } finally {
    await client.end();
  }
}

// SPEC 9: "stateless instances behind a load balancer on one PostgreSQL (primary for writes, replicas for
// introspection reads)". The replica is a synchronous standby and the service commits with remote_apply, so
// "a revoked token is inactive on every instance immediately" holds for reads on the replica too.
describe('two instances reading tokens from a synchronous read replica', () => {
  let primary: PrivatePostgres;
  let standby: PrivatePostgres;
  let a: Instance;
  let b: Instance;
  let client: TestClient;

  const configInput = () => ({
    log: { level: 'info' },
    sessionSecret: 's'.repeat(40),
    databaseUrl: primary.url,
    databaseReadUrl: standby.url,
  });

  // The serving path: buildServer opens the database from the config, read replica included, and checks it.
  async function startInstance(): Promise<Instance> {
    const config = loadConfig({ input: configInput() });
    const log: string[] = [];
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean)));
    const app = await buildServer({ config, logStream });
    const deps = domainDeps(app.database, config);
    return { app, deps, log };
  }

  beforeAll(async () => {
    primary = await startPrivatePostgres();
    standby = await startStandby(primary);
    const migrator = await createDatabase({ databaseUrl: primary.url, dataDir: 'unused', poolSize: 1 });
    await migrate(migrator);
    await migrator.close();
    a = await startInstance();
    b = await startInstance();
    client = await createClient(a.deps);
  }, 120_000);
  afterAll(async () => {
    await a?.app.close();
    await b?.app.close();
    await standby?.remove();
    await primary?.remove();
  });

  const post = (instance: Instance, url: string, params: Record<string, string>) =>
    instance.app.inject({
      method: 'POST',
      url,
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
      payload: form(params),
    });
  const issue = async () => {
    const response = await post(a, '/oauth/token', { grant_type: 'client_credentials' });
    expect(response.statusCode).toBe(200);
    return response.json().access_token as string;
  };
  const isActive = async (instance: Instance, token: string) => {
    const response = await post(instance, '/oauth/introspect', { token });
    expect(response.statusCode).toBe(200);
    return response.json().active as boolean;
  };
  const readsSeenBy = (server: PrivatePostgres) =>
    sqlOn<{ query: string }>(server.superuserUrl, "SELECT query FROM pg_stat_activity WHERE application_name = 'oauth-service reads'");

  it('a token issued through one instance is active through the other at once, and the lookup ran on the replica', async () => {
    const token = await issue();
    expect(await isActive(b, token)).toBe(true);
    const onStandby = await readsSeenBy(standby);
    expect(onStandby.some(({ query }) => query.includes(TOKEN_LOOKUP))).toBe(true);
    expect(await readsSeenBy(primary)).toEqual([]);
    // Token info reads there too.
    const info = await b.app.inject({ method: 'GET', url: '/oauth/token/info', headers: { authorization: `Bearer ${token}` } });
    expect(info.statusCode).toBe(200);
  });

  it('a revocation is answered only once the replica has applied it, so no instance reads the token as active afterwards', async () => {
    const token = await issue();
    expect(await isActive(b, token)).toBe(true);
    await sqlOn(standby.superuserUrl, 'SELECT pg_wal_replay_pause()');
    let answered = false;
    const revoking = post(a, '/oauth/revoke', { token }).then((response) => {
      answered = true;
      return response;
    });
    try {
      await sleep(1_000);
      // The primary has committed, the replica has not applied it: the revocation must not be answered yet.
      expect(answered).toBe(false);
      expect(await isActive(b, token)).toBe(true);
    } finally {
      await sqlOn(standby.superuserUrl, 'SELECT pg_wal_replay_resume()');
    }
    expect((await revoking).statusCode).toBe(200);
    expect(await isActive(b, token)).toBe(false);
    expect(await isActive(a, token)).toBe(false);
  });

  it('boot (and the CLI, whose revocations must wait for the replica too) refuses a primary without a synchronous standby, and a read URL that is not a standby', async () => {
    const config = loadConfig({ input: configInput() });
    const [{ names }] = (await sqlOn<{ names: string }>(
      primary.superuserUrl,
      'SELECT current_setting($$synchronous_standby_names$$) AS names',
    )) as [{ names: string }];
    const setStandbyNames = async (value: string) => {
      await sqlOn(primary.superuserUrl, `ALTER SYSTEM SET synchronous_standby_names = '${value.replaceAll("'", "''")}'`);
      await sqlOn(primary.superuserUrl, 'SELECT pg_reload_conf()');
      for (let i = 0; i < 50; i += 1) {
        const [{ current }] = (await sqlOn<{ current: string }>(
          primary.superuserUrl,
          'SELECT current_setting($$synchronous_standby_names$$) AS current',
        )) as [{ current: string }];
        if (current === value) return;
        await sleep(100);
      }
      throw new Error(`synchronous_standby_names did not become '${value}'`);
    };
    await setStandbyNames('');
    try {
      await expect(buildServer({ config })).rejects.toThrow(/no synchronous standby \(synchronous_standby_names is empty\)/);
    } finally {
      await setStandbyNames(names);
    }
    const onPrimary = loadConfig({ input: { ...configInput(), databaseReadUrl: primary.url } });
    await expect(buildServer({ config: onPrimary })).rejects.toThrow(/databaseReadUrl: the server it points at is not a standby/);
    const cli = await runCliInProcess(['apps', 'list'], { DATABASE_URL: primary.url, DATABASE_READ_URL: primary.url });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/^oauth-service: databaseReadUrl: the server it points at is not a standby/);
  });

  it('with the replica down, introspection answers from the primary (and says so in the log, also when booting then); reads go back to the replica once it is up', async () => {
    const token = await issue();
    await standby.stop();
    // No writes meanwhile: the primary's commits wait for its synchronous standby.
    expect(await isActive(b, token)).toBe(true);
    expect(b.log.some((line) => line.includes('read replica unreachable'))).toBe(true);
    const metrics = await scrapeMetrics(b.app);
    expect(metrics).toMatch(/\noauth_db_read_fallbacks_total [1-9]\d*\n/);
    expect(metrics).toMatch(/\noauth_db_read_pool_idle \d+\n/);
    // An instance that boots while the replica is down starts, serves from the primary, and says so at once.
    const late = await startInstance();
    try {
      expect(late.log.some((line) => line.includes('read replica unreachable'))).toBe(true);
      expect(await isActive(late, token)).toBe(true);
    } finally {
      await late.app.close();
    }

    await standby.start();
    let back = false;
    for (let attempt = 0; attempt < 40 && !back; attempt += 1) {
      await sleep(500);
      expect(await isActive(b, token)).toBe(true);
      back = (await readsSeenBy(standby)).some(({ query }) => query.includes(TOKEN_LOOKUP));
    }
    expect(back).toBe(true);
    expect(b.log.some((line) => line.includes('read replica reachable again'))).toBe(true);
  });
});
