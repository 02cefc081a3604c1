import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildServer } from '../../src/app.js';
import { domainDeps } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config/loader.js';
import { createDatabase, databaseOptions, type Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { createStores } from '../../src/storage/stores.js';
import { createClient, issueToken, type TestClient } from './factories.js';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';
import { basicAuth, form, FORM } from './test-server.js';

// Fault tests stop, restart or reconfigure a PostgreSQL under the running service, so the service gets a cluster of
// its own (never the shared one) and no application cache: every request reaches the database.

/** The service on a private PostgreSQL, with a confidential client and one live access token of it. */
export interface ServiceOnPrivatePostgres {
  postgres: PrivatePostgres;
  database: Database;
  app: FastifyInstance;
  client: TestClient;
  /** A live access token of `client`. */
  token: string;
  /** POSTs a form to `url` with the client's Basic credentials. */
  asClient(url: string, params: Record<string, string>): Promise<LightMyRequestResponse>;
  /** POST /oauth/introspect of `value` (by default `token`) as the client. */
  introspect(value?: string): Promise<LightMyRequestResponse>;
  /** POST /oauth/token grant_type=client_credentials as the client. */
  issue(): Promise<LightMyRequestResponse>;
  /** Rows in oauth_access_tokens (a refused or failed write must have stored none). */
  tokenRows(): Promise<number>;
  close(): Promise<void>;
}

/** `configInput`: config keys beside the database URL (the database is opened from the config, as `serve` does). */
export async function serviceOnPrivatePostgres(configInput: Record<string, unknown> = {}): Promise<ServiceOnPrivatePostgres> {
  const postgres = await startPrivatePostgres();
  let database: Database | undefined;
  let app: FastifyInstance | undefined;
  // The caller's afterAll only gets what is returned: a failed setup closes what it opened itself.
  const close = async () => {
    await app?.close();
    await database?.close().catch(() => undefined);
    await postgres.remove();
  };
  try {
    const config = loadConfig({ input: { log: { level: 'silent' }, databaseUrl: postgres.url, databasePoolSize: 4, ...configInput } });
    database = await createDatabase(databaseOptions(config));
    await migrate(database);
    const stores = createStores(database, { applicationCacheSeconds: 0 });
    const deps = domainDeps(database, config, stores);
    app = await buildServer({ config, database, stores });
    const client = await createClient(deps);
    const token = (await issueToken(deps, { application: client.application })).accessToken;
    return serviceOf(postgres, database, app, client, token, close);
  } catch (error) {
    await close();
    throw error;
  }
}

function serviceOf(
  postgres: PrivatePostgres,
  database: Database,
  app: FastifyInstance,
  client: TestClient,
  token: string,
  close: () => Promise<void>,
): ServiceOnPrivatePostgres {
  const asClient = (url: string, params: Record<string, string>) =>
    app.inject({ method: 'POST', url, headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) }, payload: form(params) });
  return {
    postgres,
    database,
    app,
    client,
    token,
    asClient,
    introspect: (value = token) => asClient('/oauth/introspect', { token: value }),
    issue: () => asClient('/oauth/token', { grant_type: 'client_credentials' }),
    async tokenRows() {
      const rows = await database.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_access_tokens');
      return rows[0]!.n;
    },
    close,
  };
}
