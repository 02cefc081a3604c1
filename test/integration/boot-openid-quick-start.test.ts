import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwksKids } from '../helpers/openid.js';
import { startService, stopService } from '../helpers/processes.js';

// The real executable at boot (issue 31 item 7): the quick start, `serve` on a fresh embedded folder with no config,
// is an OpenID Provider. Production and `openid.enabled: false`, which are not: boot-openid.test.ts.

interface Discovery {
  issuer: string;
  jwks_uri: string;
  scopes_supported: string[];
}

describe('oauth-service serve: the quick start is an OpenID Provider (issue 31 item 7)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'oauth-boot-quick-start-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // The quick start is the embedded database whatever backend the suite runs on: no DATABASE_URL here.
  it('the quick start (no config, a fresh embedded folder) is an OpenID Provider: discovery, JWKS, a development key and its warning', async () => {
    const dataDir = join(root, 'quick-start');
    const service = await startService({ SESSION_SECRET: 'x'.repeat(40), DATA_DIR: dataDir });
    try {
      const response = await fetch(`${service.baseUrl}/.well-known/openid-configuration`);
      expect(response.status).toBe(200);
      const discovery = (await response.json()) as Discovery;
      expect(discovery).toMatchObject({ issuer: service.baseUrl, jwks_uri: `${service.baseUrl}/oauth/jwks` });
      expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
      expect((await jwksKids(service.baseUrl)).length).toBeGreaterThan(0);
      expect(existsSync(join(dataDir, 'key-encryption-key'))).toBe(true);
      expect(service.output()).toContain(`OpenID Provider: ${service.baseUrl}/.well-known/openid-configuration`);
      expect(service.output()).toContain('KEY_ENCRYPTION_KEY is not set: the signing keys are encrypted with a development key');
      // initdb and the migrations take seconds before the first log line: the boot says what it is doing.
      expect(service.output()).toContain(`creating the embedded database in ${dataDir} (first start: this takes several seconds)`);
    } finally {
      expect(await stopService(service.child)).toBe(0);
    }
  }, 90_000);
});
