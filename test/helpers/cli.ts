import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import { withDatabase } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/index.js';
import type { CliIo } from '../../src/cli/io.js';
import { loadConfig } from '../../src/config/loader.js';
import type { ConfigInput } from '../../src/config/types.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import type { Database } from '../../src/storage/database.js';
import { createTestDatabase, loadMigratedDataDir, type TestDatabase } from './test-database.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The ops CLI in-process on a database of its own, as an operator runs it: every `run` opens the configured
 * database and closes it again. On PGlite that is a data folder in a temp dir (a file database, because each
 * call opens it anew); on PostgreSQL a fresh database of the server in DATABASE_URL.
 */
export interface CliHarness {
  env: Record<string, string | undefined>;
  /** Path of the config file every run gets with --config (when `config` was given). */
  configPath: string | null;
  run(argv: string[], stdin?: string): Promise<CliResult>;
  /** Runs `argv`, expecting exit code 0 and nothing on stderr, and returns stdout. */
  stdout(argv: string[]): Promise<string>;
  /** Runs `argv` with --json the same way and returns the output parsed. */
  json(argv: string[]): Promise<any>;
  /** Runs `work` with the domain's deps and the database, opened and closed like a CLI call. */
  withDeps<T>(work: (deps: OAuthDeps, database: Database) => Promise<T>): Promise<T>;
  /** How many applications the database holds: what a refused `apps create` must leave unchanged. */
  applicationCount(): Promise<number>;
  /** The secret column of the application `uid` as stored (a SHA-256 hex, or null); undefined when there is none. */
  storedSecret(uid: string): Promise<string | null | undefined>;
  close(): Promise<void>;
}

export async function createCliHarness(config?: ConfigInput): Promise<CliHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'oauth-cli-'));
  let testDatabase: TestDatabase | null = null;
  if (process.env.DATABASE_URL) testDatabase = await createTestDatabase();
  else await loadMigratedDataDir(dataDir);
  const configPath = config ? join(dataDir, 'config.json') : null;
  if (configPath) writeFileSync(configPath, JSON.stringify(config));
  const env = { DATABASE_URL: testDatabase?.url ?? undefined, DATA_DIR: dataDir, OAUTH_CONFIG: configPath ?? 'none' };
  const withDeps: CliHarness['withDeps'] = (work) => withDatabase(loadConfig({ path: configPath, env }), work);
  const stdout = async (argv: string[]) => {
    const result = await runCliInProcess(argv, env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  };
  return {
    env,
    configPath,
    run: (argv, stdin = '') => runCliInProcess(argv, env, stdin),
    stdout,
    json: async (argv) => JSON.parse(await stdout([...argv, '--json'])),
    withDeps,
    applicationCount: () => withDeps(async (deps) => (await deps.stores.applicationAdmin.list()).length),
    storedSecret: (uid) => withDeps(async (deps) => (await deps.stores.applications.findByUid(uid))?.secret),
    async close() {
      if (testDatabase) await testDatabase.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The CLI in this process with this environment, as `oauth-service <argv>` would run; output captured. OAUTH_CONFIG
 * is `none` unless `env` says otherwise (undefined: unset), and `cwd` a folder of the test's choosing: the tests run in
 * the repository, where a developer's own config.json must not be read (issue 32).
 */
export async function runCliInProcess(
  argv: string[],
  env: Record<string, string | undefined>,
  stdin = '',
  cwd?: string,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    env: { OAUTH_CONFIG: 'none', ...env },
    cwd,
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: Readable.from(stdin === '' ? [] : [Buffer.from(stdin)]),
    onSignal: () => undefined,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** A usage error: exit code 2 and exactly one line on stderr, starting with the program name. */
export function usageErrorLine(result: CliResult): string {
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  if (result.code !== 2 || lines.length !== 1 || !lines[0]!.startsWith('oauth-service: ')) {
    throw new Error(`expected a one-line usage error with exit code 2, got ${result.code}:\n${result.stderr}${result.stdout}`);
  }
  return lines[0]!;
}
