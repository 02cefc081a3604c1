import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { loadConfig } from '../../src/config/loader.js';
import { runCliInProcess, usageErrorLine } from '../helpers/cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const run = (argv: string[], stdin = '') => runCliInProcess(argv, {}, stdin);

describe('oauth-service --version', () => {
  it.each([['--version'], ['-v'], ['version']])('%s prints the version of package.json and nothing else', async (flag) => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await run([flag]);
    expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([['--version'], ['-v'], ['version']])(
    '%s --json prints {"version": ...}, as every command prints JSON with --json',
    async (flag) => {
      const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      const result = await run([flag, '--json']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ version });
    },
  );

  it('after the options every command takes, given before it (operations.md: "before the command too")', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await run(['--config', 'none', '--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(await run(['--config=none', '-v'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const json = await run(['--json', '--version']);
    expect([json.code, JSON.parse(json.stdout)]).toEqual([0, { version }]);
    expect((await run(['--config', 'none', '--help'])).stdout).toContain('--version');
  });

  it('refuses an option or argument it does not take with a usage error', async () => {
    expect(usageErrorLine(await run(['--version', '--verbose']))).toBe("oauth-service: Unknown option '--verbose'");
    expect(usageErrorLine(await run(['version', 'extra']))).toMatch(/^oauth-service: Unexpected argument 'extra'/);
  });

  it('is listed in --help', async () => {
    expect((await run(['--help'])).stdout).toContain('--version');
  });
});

describe('oauth-service admin hash-password', () => {
  it('hashes the first line of stdin with argon2id, a value ADMIN_PASSWORD_HASH accepts and that verifies the password', async () => {
    const result = await run(['admin', 'hash-password'], 'a long admin password\nignored\n');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const hash = result.stdout.trimEnd();
    expect(result.stdout).toBe(`${hash}\n`);
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await argon2Hasher.verify(hash, 'a long admin password')).toBe(true);
    expect(await argon2Hasher.verify(hash, 'a long admin passwore')).toBe(false);
    expect(loadConfig({ env: { ADMIN_PASSWORD_HASH: hash } }).admin.passwordHash).toBe(hash);
  });

  it('--json prints {"ADMIN_PASSWORD_HASH": ...}, and a fresh salt each time', async () => {
    const first = JSON.parse((await run(['admin', 'hash-password', '--json'], 'a long admin password\n')).stdout) as Record<string, string>;
    const second = JSON.parse((await run(['admin', 'hash-password', '--json'], 'a long admin password\n')).stdout) as Record<
      string,
      string
    >;
    expect(Object.keys(first)).toEqual(['ADMIN_PASSWORD_HASH']);
    expect(first.ADMIN_PASSWORD_HASH).not.toBe(second.ADMIN_PASSWORD_HASH);
    expect(await argon2Hasher.verify(second.ADMIN_PASSWORD_HASH!, 'a long admin password')).toBe(true);
  });

  it('refuses a password shorter than 12 characters, saying so, and prints no hash', async () => {
    const result = await run(['admin', 'hash-password'], 'elevenchars\n');
    expect(usageErrorLine(result)).toBe('oauth-service: the admin password must be at least 12 characters (it has 11)');
    expect(result.stdout).toBe('');
    expect((await run(['admin', 'hash-password'], 'twelve chars\n')).code).toBe(0);
  });

  it('refuses an empty stdin, and takes no --password (it would end up in the shell history)', async () => {
    expect(usageErrorLine(await run(['admin', 'hash-password'], ''))).toBe(
      'oauth-service: the admin password is empty (give one line on stdin)',
    );
    expect(usageErrorLine(await run(['admin', 'hash-password', '--password', 'a long admin password']))).toMatch(
      /Unknown option '--password'/,
    );
  });

  it('admin --help and admin hash-password --help explain it; an unknown subcommand is a usage error', async () => {
    expect((await run(['admin', '--help'])).stdout).toContain('ADMIN_PASSWORD_HASH=$(echo');
    expect((await run(['admin', 'hash-password', '--help'])).stdout).toContain('at least 12 characters');
    expect(usageErrorLine(await run(['admin', 'frobnicate']))).toContain("unknown subcommand 'admin frobnicate'");
    expect((await run(['--help'])).stdout).toContain('admin hash-password');
  });
});
