import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootFolder } from '../helpers/boot-folder.js';
import { runService, startService, stopService } from '../helpers/processes.js';
import { loadMigratedDataDir } from '../helpers/test-database.js';

// The real executable at boot (issue 31 item 7): `openid.enabled: false` is no OpenID Provider. Production without
// KEY_ENCRYPTION_KEY: boot-openid-production.test.ts; the quick start, which is one: boot-openid-quick-start.test.ts
// (its first boot runs initdb in WebAssembly). The three took 72 s in one file in CI's PostgreSQL pass beside the
// container check, and these two 60 s (2026-12-03): one file each. Signing keys stored under another
// KEY_ENCRYPTION_KEY: boot-signing-keys-rewrap.test.ts.

const SECRET = { SESSION_SECRET: 'x'.repeat(40) };

describe('oauth-service serve: OpenID Connect by default where it costs nothing (issue 31 item 7)', () => {
  const { folder, configFile } = bootFolder('oauth-boot-openid');

  it('openid.enabled false turns it off: no discovery, no JWKS, no development key; the boot warns of applications set to JWT access tokens', async () => {
    // Not the quick start's fresh folder: a migrated copy, so the boot runs no initdb in WebAssembly (on the PostgreSQL
    // pass, which has no PGlite template, the command below makes the database).
    const dataDir = folder('off');
    await loadMigratedDataDir(dataDir);
    const env = { ...SECRET, DATA_DIR: dataDir, OAUTH_CONFIG: configFile('off', { openid: { enabled: false } }) };
    // Made while OpenID Connect was on (the CLI refuses JWT access tokens while it is off).
    const jwt = ['apps', 'create', '--name', 'JWT', '--redirect-uri', 'https://app.example/cb', '--access-token-format', 'jwt'];
    const whileOn = { ...env, OAUTH_CONFIG: configFile('on', { openid: { enabled: true } }), KEY_ENCRYPTION_KEY: 'ab'.repeat(32) };
    expect((await runService(jwt, whileOn)).code).toBe(0);
    const service = await startService(env);
    try {
      expect((await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).status).toBe(404);
      expect((await fetch(`${service.baseUrl}/oauth/jwks`)).status).toBe(404);
      const metadata = (await (await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata.jwks_uri).toBeUndefined();
      expect(existsSync(join(dataDir, 'key-encryption-key'))).toBe(false);
      expect(service.output()).not.toContain('OpenID Provider:');
      expect(service.output()).not.toContain('creating the embedded database');
    } finally {
      expect(await stopService(service.child)).toBe(0);
    }
    // A log line, which standard output writes at most 250 ms later: read once the service has stopped (and flushed).
    // JWT access tokens are signed with the keys OpenID Connect publishes: while it is off the application gets opaque
    // tokens, which the boot says.
    expect(service.output()).toContain(
      '1 application(s) or resource(s) are set to JWT access tokens (RFC 9068), which are signed with OpenID Connect',
    );
  }, 90_000);
});
