import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runService, serviceFixture, type ServiceFixture } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

// The real executable refusing to boot, each with exit code 2 and one line naming what is wrong (SPEC 2). A boot
// that succeeds: boot.test.ts (apart, as each file here runs its processes one after the other).
describe(`oauth-service serve refuses (${backend})`, () => {
  let fixture: ServiceFixture;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    fixture = await serviceFixture('oauth-boot-refusals-');
    env = fixture.env;
  });
  afterAll(() => fixture.dispose());

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
    // Two processes that compile the service's TypeScript as they start (scripts/cli.mjs): 8 s on an idle machine,
    // past 30 s on a loaded one (a CI run beside other work).
  }, 60_000);

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
