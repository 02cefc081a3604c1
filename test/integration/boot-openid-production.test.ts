import { describe, expect, it } from 'vitest';
import { bootFolder } from '../helpers/boot-folder.js';
import { runService, startService, stopService } from '../helpers/processes.js';
import { loadMigratedDataDir } from '../helpers/test-database.js';

// The real executable at boot in production (issue 31 item 7): no OpenID Provider without KEY_ENCRYPTION_KEY. The
// other boots of boot-openid.test.ts, apart so that neither file nears 60 s on a busy machine.

const SECRET = { SESSION_SECRET: 'x'.repeat(40) };

describe('oauth-service serve in production: OpenID Connect only with a key-encryption key (issue 31 item 7)', () => {
  const { folder, configFile } = bootFolder('oauth-boot-openid-production');

  it('NODE_ENV=production: openid.enabled true without KEY_ENCRYPTION_KEY refuses to boot, saying so; left automatic it is off, and the boot says how to turn it on', async () => {
    const production = { ...SECRET, NODE_ENV: 'production', OAUTH_CREATE_EMBEDDED_DATABASE: '1', DATA_DIR: folder('production') };
    await loadMigratedDataDir(production.DATA_DIR);
    const refused = await runService(['serve'], { ...production, OAUTH_CONFIG: configFile('on', { openid: { enabled: true } }) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'KEY_ENCRYPTION_KEY: needed while openid.enabled is true, to encrypt the signing keys (32 random bytes: openssl rand -hex 32)',
    );

    const service = await startService({ ...production, LOG_LEVEL: 'info' });
    try {
      expect((await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).status).toBe(404);
    } finally {
      expect(await stopService(service.child)).toBe(0);
    }
    // A log line: read once the service has stopped and flushed its standard output (written at most 250 ms later).
    expect(service.output()).toContain(
      'OpenID Connect is off: openid.enabled is automatic (null), which is on only outside production (NODE_ENV is production). Set openid.enabled to true, with KEY_ENCRYPTION_KEY',
    );
  }, 90_000);
});
