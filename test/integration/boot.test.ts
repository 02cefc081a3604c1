import { domainDeps } from '../../src/cli/context.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import { createApplication } from '../../src/oauth/clients/applications.js';
import { createDatabase } from '../../src/storage/database.js';
import { ROOT, runService, serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

// The real executable, as `npm start` and the image run it (SPEC 2).
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

  it('refuses to boot on a misspelled config key, naming its path, with exit code 2', async () => {
    const result = await runService(['serve', '--config', join(ROOT, 'test/fixtures/config/misspelled-key.json')], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('acessTokenExpiresIn: unknown key');
  }, 30_000);

  it('refuses to boot on a wrong type from the environment', async () => {
    const result = await runService(['serve'], { ...env, PORT: 'eighty' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid environment variable PORT: must be integer (it sets port)');
    expect(result.stderr).not.toContain('defaults');
  }, 30_000);

  it('refuses to boot, with exit code 2 and one line naming the variable, on a HOST it cannot listen on or a DATA_DIR that is a file', async () => {
    const host = await runService(['serve'], { ...env, HOST: 'not a host' });
    expect(host.code).toBe(2);
    expect(host.stderr.trim().split('\n')).toEqual([
      'oauth-service: Invalid environment variable HOST: cannot listen on "not a host": no such host',
    ]);
    const dataDir = join(ROOT, 'package.json');
    const folder = await runService(['serve'], { ...env, DATABASE_URL: undefined, DATA_DIR: dataDir });
    expect(folder.code).toBe(2);
    expect(folder.stderr.trim().split('\n')).toEqual([
      `oauth-service: Invalid environment variable DATA_DIR: ${dataDir} is a file, not a folder`,
    ]);
  }, 30_000);

  it('names the key of a config file that sets a host it cannot listen on', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'oauth-boot-host-'));
    try {
      const file = join(folder, 'config.json');
      writeFileSync(file, JSON.stringify({ host: 'not a host' }));
      const result = await runService(['serve', '--config', file], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `oauth-service: Invalid configuration in ${file}:\n  - host: cannot listen on "not a host": no such host\n`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 30_000);

  it('answers --help and an unknown command with exit code 2 and one line', async () => {
    const help = await runService(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: oauth-service <command>');
    const unknown = await runService(['frobnicate'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual(["oauth-service: unknown command 'frobnicate' (try --help)"]);
  }, 30_000);
});
