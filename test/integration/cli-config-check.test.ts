import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

// `oauth-service config check`: loads the configuration exactly as the server does (SPEC 2) and says whether it is
// valid, without ever printing a secret.
describe('oauth-service config check', () => {
  const folder = mkdtempSync(join(tmpdir(), 'oauth-config-check-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const configFile = (config: unknown) => {
    const path = join(folder, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(config));
    return path;
  };

  it('a valid configuration: exit 0; --json shows it with every secret and database URL as [set]', async () => {
    const secrets = {
      SESSION_SECRET: 's'.repeat(40),
      KEY_ENCRYPTION_KEY: 'k'.repeat(64),
      METRICS_TOKEN: 'm'.repeat(40),
      ADMIN_PASSWORD: 'an-admin-password',
      DATABASE_URL: 'postgresql://oauth:db-password@db.example/oauth',
      DATABASE_READ_URL: 'postgresql://oauth:db-password@replica.example/oauth',
    };
    const plain = await runCliInProcess(['config', 'check'], secrets);
    expect(plain).toMatchObject({ code: 0, stdout: 'configuration is valid\n', stderr: '' });
    const json = await runCliInProcess(['config', 'check', '--json'], secrets);
    expect(json.code).toBe(0);
    const { config } = JSON.parse(json.stdout) as { config: Record<string, any> };
    expect(config).toMatchObject({
      sessionSecret: '[set]',
      databaseUrl: '[set]',
      databaseReadUrl: '[set]',
      admin: { password: '[set]' },
      keys: { encryptionKey: '[set]' },
      metrics: { token: '[set]' },
    });
    for (const secret of ['s'.repeat(40), 'k'.repeat(64), 'm'.repeat(40), 'an-admin-password', 'db-password'])
      expect(json.stdout).not.toContain(secret);
  });

  it('a renamed key still works and is named on stderr with its new name; an invalid one is exit 2 with its path', async () => {
    const renamed = await runCliInProcess(['config', 'check', '--config', configFile({ dpop: { clockSkewSeconds: 3 } })], {});
    expect(renamed.code).toBe(0);
    expect(renamed.stderr).toBe(
      'warning: dpop.clockSkewSeconds is deprecated: it is now dpop.clockToleranceSeconds (the same value is used; rename it)\n',
    );
    const invalid = await runCliInProcess(['config', 'check', '--config', configFile({ dpop: { clockToleranceSeconds: -1 } })], {});
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('dpop.clockToleranceSeconds: must be >= 0');
  });
});
