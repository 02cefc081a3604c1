import { domainDeps } from '../../src/cli/context.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import { createApplication } from '../../src/oauth/clients/applications.js';
import { createDatabase } from '../../src/storage/database.js';
import { serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

// The real executable, as `npm start` and the image run it (SPEC 2). What it refuses to boot on: boot-refusals.test.ts.
describe(`oauth-service serve (${backend})`, () => {
  let fixture: ServiceFixture;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    fixture = await serviceFixture('oauth-boot-');
    env = fixture.env;
  });
  afterAll(() => fixture.dispose());

  it('migrates a fresh database, serves /healthz and /readyz, stops cleanly on SIGTERM, and keeps its data across a restart', async () => {
    // At info, so that the requests below are logged: standard output is checked to hold them alone.
    const first = await startService({ ...env, LOG_LEVEL: 'info' });
    expect((await fetch(`${first.baseUrl}/healthz`)).status).toBe(200);
    expect(first.output()).toContain('oauth-service is running at');
    expect(await stopService(first.child)).toBe(0);
    // Standard output holds the log lines alone, one JSON object each (a collector reads it); the banner is on stderr.
    // Read once the process has ended and its output is read to the end: the log is written in batches.
    const output = first.child.stdout!;
    if (!output.readableEnded) await new Promise((resolve) => output.once('end', resolve));
    const lines = first
      .stdout()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();

    // Write an application while the service is down, through the same code the CLI uses.
    const config = loadConfig({ env });
    const database = await createDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    const deps = domainDeps(database, config);
    const { application, plainSecret } = await createApplication(deps, {
      name: 'Survivor',
      redirectUri: 'https://app.example.com/cb',
      scopes: '',
      confidential: true,
    });
    await database.close();

    const second = await startService(env);
    const response = await fetch(`${second.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: application.uid, client_secret: plainSecret! }),
    });
    expect(response.status).toBe(200);
    expect(await stopService(second.child)).toBe(0);
  }, 90_000);
});
