import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { domainDeps } from '../../src/cli/context.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { loadConfig } from '../../src/config/loader.js';
import { createApplication } from '../../src/oauth/clients/applications.js';
import { createDatabase } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { startService, stopService } from '../helpers/processes.js';

// SPEC 9: "graceful shutdown finishes in-flight requests". Password grants spend tens of milliseconds in
// argon2 each, so a burst of them is still being processed when SIGTERM lands.
describe('SIGTERM under load', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let clientId: string;
  let clientSecret: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'oauth-shutdown-'));
    const configPath = join(dataDir, 'config.json');
    writeFileSync(configPath, JSON.stringify({ grantFlows: ['client_credentials', 'password'], dataDir: join(dataDir, 'db') }));
    // debug: the one line a request logs by default comes when it completes; `incoming request` is a debug line.
    env = { OAUTH_CONFIG: configPath, SESSION_SECRET: 'x'.repeat(40), LOG_LEVEL: 'debug' };
    const config = loadConfig({ path: configPath });
    const database = await createDatabase({ databaseUrl: null, dataDir: config.dataDir });
    await migrate(database);
    const deps = domainDeps(database, config);
    const created = await createApplication(deps, { name: 'Load', redirectUri: '', scopes: '', confidential: true });
    clientId = created.application.uid;
    clientSecret = created.plainSecret!;
    await deps.stores.userAdmin.create({ username: 'alice', passwordHash: await argon2Hasher.hash('a long password') });
    await database.close();
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers every request it has received, then exits 0', async () => {
    const service = await startService(env);
    const body = new URLSearchParams({
      grant_type: 'password',
      username: 'alice',
      password: 'a long password',
      client_id: clientId,
      client_secret: clientSecret,
    });
    const requests = Array.from({ length: 12 }, () =>
      fetch(`${service.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }).then(
        (r) => r.status,
        (error: Error) => String((error.cause as { code?: string })?.code ?? error),
      ),
    );
    // Signal only once the service has received every request (its own log says so).
    const received = () =>
      service
        .output()
        .split('\n')
        .filter((line) => line.includes('"url":"/oauth/token"') && line.includes('incoming request')).length;
    for (let waited = 0; received() < requests.length && waited < 20_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(received()).toBe(requests.length);
    const signalled = Date.now();
    const exit = stopService(service.child);
    const statuses = await Promise.all(requests);
    expect(statuses).toEqual(statuses.map(() => 200));
    expect(await exit).toBe(0);
    // Well within `docker stop`'s 10 s: the keep-alive connections of the answered requests end with them instead of
    // holding the process for keepAliveTimeout (72 s; src/http/plugins/shutdown-connections.ts).
    expect(Date.now() - signalled).toBeLessThan(10_000);
  }, 120_000);
});
