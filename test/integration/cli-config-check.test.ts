import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
      KEY_ENCRYPTION_KEY: 'a'.repeat(64),
      METRICS_TOKEN: 'm'.repeat(40),
      ADMIN_PASSWORD: 'an-admin-password',
      DATABASE_URL: 'postgresql://oauth:db-password@db.example/oauth',
      DATABASE_READ_URL: 'postgresql://oauth:db-password@replica.example/oauth',
    };
    const plain = await runCliInProcess(['config', 'check'], secrets);
    expect(plain).toMatchObject({ code: 0, stdout: 'config: none (defaults)\nconfiguration is valid\n', stderr: '' });
    const json = await runCliInProcess(['config', 'check', '--json'], secrets);
    expect(json.code).toBe(0);
    const { config, configFile } = JSON.parse(json.stdout) as { config: Record<string, any>; configFile: string | null };
    expect(configFile).toBeNull();
    expect(config).toMatchObject({
      sessionSecret: '[set]',
      databaseUrl: '[set]',
      databaseReadUrl: '[set]',
      admin: { password: '[set]' },
      keys: { encryptionKey: '[set]' },
      metrics: { token: '[set]' },
    });
    for (const secret of ['s'.repeat(40), 'a'.repeat(64), 'm'.repeat(40), 'an-admin-password', 'db-password'])
      expect(json.stdout).not.toContain(secret);
    // The admin's password hash too: it can be attacked offline (an extensions and config audit).
    const hash = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$8oMUBbGPp6pU8bDFTB9+Z1BSSlaKFTKRsI3mZIWKZ2Y';
    const hashed = await runCliInProcess(['config', 'check', '--json'], { ADMIN_PASSWORD_HASH: hash });
    expect(JSON.parse(hashed.stdout).config.admin).toMatchObject({ passwordHash: '[set]' });
    expect(hashed.stdout).not.toContain(hash.slice(-20));
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

  it("--config before the command is the command's (as `oauth-service --config F apps list` is typed)", async () => {
    const file = configFile({ dpop: { clockToleranceSeconds: -1 } });
    for (const argv of [
      ['--config', file, 'config', 'check'],
      [`--config=${file}`, 'config', 'check'],
    ]) {
      const result = await runCliInProcess(argv, {});
      expect({ code: result.code, stderr: result.stderr }).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('dpop.clockToleranceSeconds'),
      });
    }
  });

  it('--json before the command, alone or with --config, is the command\'s too (operations.md: "before the command too")', async () => {
    const file = configFile({ dpop: { clockToleranceSeconds: -1 } });
    for (const argv of [
      ['--json', '--config', file, 'config', 'check'],
      ['--config', file, '--json', 'config', 'check'],
    ]) {
      const result = await runCliInProcess(argv, {});
      expect(result.code, argv.join(' ')).toBe(2);
      expect(JSON.parse(result.stdout)).toMatchObject({ valid: false });
    }
    const valid = await runCliInProcess(['--json', 'config', 'check'], { OAUTH_CONFIG: 'none' });
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true });
  });

  it('a wrong value in the file is exit 2 with its path even where an environment variable overrides the key', async () => {
    const port = await runCliInProcess(['config', 'check', '--config', configFile({ port: '39122', metrics: { port: null } })], {
      PORT: '39122',
    });
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/\nInvalid configuration in .*:\n {2}- port: must be integer\n$/);
    const host = await runCliInProcess(['config', 'check', '--config', configFile({ host: 5 })], { HOST: '127.0.0.1' });
    expect(host.code).toBe(2);
    expect(host.stderr).toContain('  - host: must be string\n');
  });

  it('an unknown introspection rule is exit 2, answered with every rule, audience included', async () => {
    const result = await runCliInProcess(['config', 'check', '--config', configFile({ introspection: { allow: [{ rule: 'nope' }] } })], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '  - introspection.allow.0: rule must be one of "sameApplication", "tokenApplication", "publicToken", "clients", "audience", "bearerScope"\n',
    );
    const audience = await runCliInProcess(
      ['config', 'check', '--config', configFile({ introspection: { allow: [{ rule: 'audience' }] } })],
      {},
    );
    expect(audience.code).toBe(0);
  });

  it('a DATA_DIR that is a file: config check and a command that opens the folder say so under its name, exit 2', async () => {
    const file = configFile({});
    for (const argv of [
      ['config', 'check'],
      ['apps', 'list'],
    ]) {
      const result = await runCliInProcess(argv, { DATA_DIR: file });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`Invalid environment variable DATA_DIR: ${file} is a file, not a folder\n`);
    }
    const fromFile = await runCliInProcess(['apps', 'list', '--config', configFile({ dataDir: file })], {});
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toContain(`  - dataDir: ${file} is a file, not a folder\n`);
  });

  // Issue 32 item 1: the file is found where the README's recipes put it, and every command says or uses the same one.
  describe('which file: --config, OAUTH_CONFIG, ./config.json, or none', () => {
    const cwd = join(folder, 'working-directory');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'config.json'), JSON.stringify({ port: 4001 }));
    const check = (args: string[], env: Record<string, string | undefined>) =>
      runCliInProcess(['config', 'check', '--json', ...args], { OAUTH_CONFIG: undefined, ...env }, '', cwd);
    const fileOf = async (args: string[], env: Record<string, string | undefined>) => {
      const result = await check(args, env);
      const { configFile, config } = JSON.parse(result.stdout) as { configFile: string | null; config: { port: number } };
      return { configFile, port: config.port };
    };

    it('./config.json of the working directory when nothing names a file; --config and OAUTH_CONFIG win over it', async () => {
      expect(await fileOf([], {})).toEqual({ configFile: join(cwd, 'config.json'), port: 4001 });
      expect(await fileOf([], { OAUTH_CONFIG: '' })).toEqual({ configFile: join(cwd, 'config.json'), port: 4001 });
      const other = configFile({ port: 4002 });
      expect(await fileOf(['--config', other], {})).toEqual({ configFile: other, port: 4002 });
      expect(await fileOf([], { OAUTH_CONFIG: other })).toEqual({ configFile: other, port: 4002 });
      // A relative path is the working directory's, and printed absolute.
      expect(await fileOf(['--config', 'config.json'], { OAUTH_CONFIG: other })).toEqual({
        configFile: join(cwd, 'config.json'),
        port: 4001,
      });
      const text = await runCliInProcess(['config', 'check'], { OAUTH_CONFIG: undefined }, '', cwd);
      expect(text.stdout).toBe(`config: ${join(cwd, 'config.json')}\nconfiguration is valid\n`);
    });

    it('none (--config none or OAUTH_CONFIG=none) reads no file, and says so', async () => {
      expect(await fileOf(['--config', 'none'], {})).toEqual({ configFile: null, port: 3000 });
      expect(await fileOf([], { OAUTH_CONFIG: 'none' })).toEqual({ configFile: null, port: 3000 });
      const text = await runCliInProcess(['config', 'check', '--config', 'none'], {}, '', cwd);
      expect(text.stdout).toBe('config: none (defaults)\nconfiguration is valid\n');
    });

    it('a broken ./config.json is named by its absolute path, by config check and by any other command', async () => {
      const broken = join(folder, 'broken');
      mkdirSync(broken);
      writeFileSync(join(broken, 'config.json'), '{\n  "instrospection": {}\n}\n');
      const run = (argv: string[]) => runCliInProcess(argv, { OAUTH_CONFIG: undefined, DATA_DIR: join(broken, 'data') }, '', broken);
      const checked = await run(['config', 'check']);
      expect(checked.code).toBe(2);
      expect(checked.stderr).toBe(
        `config: ${join(broken, 'config.json')}\nInvalid configuration in ${join(broken, 'config.json')}:\n  - instrospection: unknown key (did you mean \`introspection\`?)\n`,
      );
      const json = await run(['config', 'check', '--json']);
      expect(JSON.parse(json.stdout)).toEqual({
        valid: false,
        configFile: join(broken, 'config.json'),
        problems: ['instrospection: unknown key (did you mean `introspection`?)'],
      });
      const listed = await run(['apps', 'list']);
      expect(listed.code).toBe(2);
      expect(listed.stderr).toContain(`Invalid configuration in ${join(broken, 'config.json')}:`);
      writeFileSync(join(broken, 'config.json'), '{\n  "port": 80,\n}\n');
      expect((await run(['users', 'list'])).stderr).toBe(
        `oauth-service: ${join(broken, 'config.json')} line 3, column 1: Expected double-quoted property name (not valid JSON)\n`,
      );
    });
  });

  // What `serve` stops on besides the configuration itself: `config check` predicts it (docs/operations.md "Configuration").
  it('an OTLP protocol serve cannot export with is a problem (exit 2) while traces are requested, as serve refuses it', async () => {
    const traces = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' };
    const refusal =
      "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: traces are exported over OTLP/HTTP only; set http/protobuf (a collector's port 4318) or http/json";
    const json = await runCliInProcess(['config', 'check', '--json'], traces);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ valid: false, configFile: null, problems: [refusal] });
    expect(await runCliInProcess(['config', 'check'], traces)).toEqual({
      code: 2,
      stdout: '',
      stderr: `config: none (defaults)\n${refusal}\n`,
    });
    // Without an endpoint nothing is exported, and serve starts whatever the protocol says.
    expect((await runCliInProcess(['config', 'check'], { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).code).toBe(0);
  });

  it('a KEY_ENCRYPTION_KEY that is not 32 bytes is a problem of config check and stops serve, both exit 2 in one line', async () => {
    const refusal =
      'KEY_ENCRYPTION_KEY is not 32 bytes in hex or base64: it must be 32 random bytes, as 64 hex characters or base64 (openssl rand -hex 32)';
    const json = await runCliInProcess(['config', 'check', '--json'], { KEY_ENCRYPTION_KEY: 'zz' });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ valid: false, configFile: null, problems: [refusal] });
    const dataDir = join(folder, 'malformed-key-data');
    const served = await runCliInProcess(['serve'], { KEY_ENCRYPTION_KEY: 'zz', DATA_DIR: dataDir, PORT: '0' });
    expect(served).toEqual({ code: 2, stdout: '', stderr: `oauth-service: ${refusal}\n` });
    // Every problem at once: the configuration's and the key's.
    const both = await runCliInProcess(['config', 'check', '--json', '--config', configFile({ port: 'x' })], { KEY_ENCRYPTION_KEY: 'zz' });
    expect(JSON.parse(both.stdout).problems).toEqual(['port: must be integer', refusal]);
  });

  it('an extensions module serve could not load is a problem (exit 2), said as serve says it; one that loads is fine', async () => {
    const missing = join(folder, 'no-such-extensions.mjs');
    const refused = await runCliInProcess(['config', 'check', '--json', '--config', configFile({ extensions: missing })], {});
    expect(refused.code).toBe(2);
    expect((JSON.parse(refused.stdout) as { problems: string[] }).problems).toEqual([
      expect.stringMatching(new RegExp(`^extensions: cannot load ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `)),
    ]);
    const unknownExport = join(folder, 'unknown-export.mjs');
    writeFileSync(unknownExport, 'export const beforeTokenRespons = () => ({});\n');
    const misspelt = await runCliInProcess(['config', 'check', '--config', configFile({ extensions: unknownExport })], {});
    expect([misspelt.code, misspelt.stderr]).toEqual([2, expect.stringContaining('exports unknown names: beforeTokenRespons')]);
    const fine = join(folder, 'extensions.mjs');
    writeFileSync(fine, 'export const beforeTokenResponse = () => ({});\n');
    expect((await runCliInProcess(['config', 'check', '--config', configFile({ extensions: fine })], {})).code).toBe(0);
  });

  it('NODE_ENV=production: no session secret is a problem (exit 2), as serve refuses it; an http issuer a warning', async () => {
    const refused = await runCliInProcess(['config', 'check', '--json'], { NODE_ENV: 'production' });
    expect(refused.code).toBe(2);
    expect((JSON.parse(refused.stdout) as { problems: string[] }).problems).toEqual([
      expect.stringMatching(/^NODE_ENV is production and no session secret is set: set SESSION_SECRET/),
    ]);
    const warned = await runCliInProcess(['config', 'check'], {
      NODE_ENV: 'production',
      SESSION_SECRET: 's'.repeat(40),
      BASE_URL: 'http://auth.example.com',
    });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^warning: the issuer http:\/\/auth\.example\.com is not https while NODE_ENV is production/);
    const allowed = configFile({ allowInsecureIssuer: true });
    const quiet = await runCliInProcess(['config', 'check', '--config', allowed], {
      NODE_ENV: 'production',
      SESSION_SECRET: 's'.repeat(40),
      BASE_URL: 'http://auth.example.com',
    });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
    // Without BASE_URL, the issuer serve derives from HOST and PORT, not the schema's default port.
    const derived = await runCliInProcess(['config', 'check'], { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(40), PORT: '4100' });
    expect(derived.stderr).toMatch(
      /^warning: the issuer http:\/\/127\.0\.0\.1:4100 is not https .*\(baseUrl is not set: derived from HOST and PORT\)\n$/,
    );
    const shown = await runCliInProcess(['config', 'check', '--json'], { PORT: '4100', HOST: '0.0.0.0' });
    expect(JSON.parse(shown.stdout).config.baseUrl).toBe('http://127.0.0.1:4100');
  });
});
