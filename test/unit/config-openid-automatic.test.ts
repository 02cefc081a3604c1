import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/loader.js';

// Issue 31 item 7: openid.enabled left null (the default) is automatic. The CLI (`serve` and every command) loads
// the config with quickStartOpenId, which makes it on for the quick start only; everyone else (buildServer, the
// tests through buildTestServer) reads null as off, so the suite means the same on PGlite and on PostgreSQL.

const POSTGRES = { DATABASE_URL: 'postgresql://u@db/x' };
const KEY = { KEY_ENCRYPTION_KEY: 'k'.repeat(64) };
const enabled = (input: unknown, env: Record<string, string>, quickStartOpenId = true) =>
  loadConfig({ input, env, quickStartOpenId }).openid.enabled;

describe('openid.enabled null is automatic (issue 31 item 7)', () => {
  it('defaults to null in the schema, and reads as off for a config loaded without quickStartOpenId, on either database', () => {
    expect(enabled({}, {}, false)).toBe(false);
    expect(enabled({}, POSTGRES, false)).toBe(false);
    expect(loadConfig().optionalScopes).not.toContain('openid');
  });

  it('the quick start, the embedded database outside production, is an OpenID Provider without KEY_ENCRYPTION_KEY (serve makes the development key)', () => {
    const config = loadConfig({ quickStartOpenId: true });
    expect(config.openid.enabled).toBe(true);
    expect(config.keys.encryptionKey).toBeNull();
    expect(config.optionalScopes).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'address', 'phone']));
    expect(enabled({}, { NODE_ENV: 'development', ...KEY })).toBe(true);
  });

  it('with DATABASE_URL or NODE_ENV=production it is off unless set to true, with or without KEY_ENCRYPTION_KEY', () => {
    expect(enabled({}, POSTGRES)).toBe(false);
    expect(enabled({}, { ...POSTGRES, ...KEY })).toBe(false);
    expect(enabled({}, { NODE_ENV: 'production' })).toBe(false);
    expect(enabled({}, { NODE_ENV: 'production', ...KEY })).toBe(false);
    expect(enabled({ openid: { enabled: true } }, { NODE_ENV: 'production', ...KEY })).toBe(true);
    expect(enabled({ openid: { enabled: true } }, { ...POSTGRES, ...KEY })).toBe(true);
  });

  it('set to true in production or on PostgreSQL without KEY_ENCRYPTION_KEY, the boot refuses and says what to set', () => {
    for (const env of [{ NODE_ENV: 'production' }, POSTGRES]) {
      const load = () => loadConfig({ input: { openid: { enabled: true } }, env, quickStartOpenId: true });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(
        'KEY_ENCRYPTION_KEY: needed while openid.enabled is true, to encrypt the signing keys (32 random bytes: openssl rand -hex 32)',
      );
    }
  });

  it('false turns it off, the quick start too', () => {
    expect(enabled({ openid: { enabled: false } }, {})).toBe(false);
    expect(enabled({ openid: { enabled: null } }, {})).toBe(true);
  });
});
