import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/loader.js';
import { insecureIssuerWarning, missingSessionSecret } from '../../src/config/production-settings.js';

function messageOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

// Issue 32 item 2: production that is not production, and environment variables named as such.
describe('config for production: session secret, issuer, environment variables', () => {
  const folder = mkdtempSync(join(tmpdir(), 'oauth-session-secret-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const secretFile = (contents: string) => {
    const path = join(folder, `secret-${Math.random().toString(36).slice(2)}`);
    writeFileSync(path, contents);
    return path;
  };
  const production = { NODE_ENV: 'production' };

  it('sessionSecretFile (or SESSION_SECRET_FILE): the secret is the file, trimmed; never printed when too short or unreadable', () => {
    const secret = 'f'.repeat(40);
    expect(loadConfig({ input: { sessionSecretFile: secretFile(`${secret}\n`) } }).sessionSecret).toBe(secret);
    expect(loadConfig({ env: { SESSION_SECRET_FILE: secretFile(`  ${secret}  `) } }).sessionSecret).toBe(secret);

    const short = secretFile('too-short-secret\n');
    const message = messageOf(() => loadConfig({ input: { sessionSecretFile: short } }));
    expect(message).toBe(
      `Invalid configuration in the given config:\n  - sessionSecretFile: the secret in ${short} must be at least 32 characters (openssl rand -hex 32 > ${short})`,
    );
    expect(message).not.toContain('too-short-secret');
    expect(messageOf(() => loadConfig({ env: { SESSION_SECRET_FILE: join(folder, 'missing') } }))).toBe(
      `Invalid environment variable SESSION_SECRET_FILE: cannot read ${join(folder, 'missing')}: ENOENT`,
    );
    expect(messageOf(() => loadConfig({ input: { sessionSecretFile: short }, env: { SESSION_SECRET: secret } }))).toContain(
      'sessionSecretFile: sessionSecret (SESSION_SECRET) is set too: keep one of them',
    );
  });

  it('NODE_ENV=production without a session secret: one line that says what to set; with SESSION_SECRET or the file, none', () => {
    const refusal = missingSessionSecret(loadConfig({ env: production }), production);
    expect(refusal).toMatch(/^NODE_ENV is production and no session secret is set: set SESSION_SECRET \(or sessionSecretFile/);
    expect(refusal).not.toContain('\n');
    expect(missingSessionSecret(loadConfig({ env: { ...production, SESSION_SECRET: 's'.repeat(32) } }), production)).toBeNull();
    expect(missingSessionSecret(loadConfig({ input: { sessionSecretFile: secretFile('s'.repeat(32)) } }), production)).toBeNull();
    expect(missingSessionSecret(loadConfig(), {})).toBeNull();
  });

  it('a non-https issuer in production is warned about unless allowInsecureIssuer is true; https or development: no warning', () => {
    const http = loadConfig({ env: { BASE_URL: 'http://auth.example.com' } });
    expect(insecureIssuerWarning(http, production)).toMatch(
      /^the issuer http:\/\/auth\.example\.com is not https while NODE_ENV is production/,
    );
    expect(insecureIssuerWarning(http, {})).toBeNull();
    expect(insecureIssuerWarning(loadConfig({ env: { BASE_URL: 'https://auth.example.com' } }), production)).toBeNull();
    const allowed = loadConfig({ input: { allowInsecureIssuer: true }, env: { BASE_URL: 'http://auth.example.com' } });
    expect(insecureIssuerWarning(allowed, production)).toBeNull();
  });

  it('TRUST_PROXY=maybe names the variable and lists what is valid, once', () => {
    expect(messageOf(() => loadConfig({ env: { TRUST_PROXY: 'maybe' } }))).toBe(
      'Invalid environment variable TRUST_PROXY: must be true or false, a number of proxy hops (1 to 32), or the addresses/CIDRs of the proxies separated by commas (e.g. 10.0.0.2,10.1.0.0/16; or loopback, linklocal, uniquelocal) (it sets trustProxy)',
    );
    expect(loadConfig({ env: { TRUST_PROXY: '10.0.0.2,10.1.0.0/16' } }).trustProxy).toBe('10.0.0.2,10.1.0.0/16');
    expect(messageOf(() => loadConfig({ input: { trustProxy: 'maybe' } }))).toContain('  - trustProxy: must be true or false, a number');
  });

  it('a wrong ADMIN_PASSWORD or METRICS_TOKEN is an invalid environment variable, never "Invalid configuration in" the file', () => {
    const file = secretFile('{}');
    const message = messageOf(() => loadConfig({ path: file, env: { ADMIN_PASSWORD: 'short', METRICS_TOKEN: 'short' } }));
    expect(message).not.toContain('Invalid configuration in');
    expect(message).toMatch(/^Invalid environment variables:\n {2}- ADMIN_PASSWORD: must be at least 12 characters/);
    expect(message).toContain('\n  - METRICS_TOKEN: must be at least 32 characters');
  });
});
