import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/ports.js';
import { backend, createTestDatabase, type TestDatabase } from './test-database.js';

export const ROOT = join(import.meta.dirname, '../..');

// As `npm run cli` runs it: scripts/cli.mjs runs main.js of the esbuild build of the current sources (made once,
// reused while no source changes) in its own process, so no wrapper process stands between the test and the service
// and signals reach the service itself, as in production (`node dist/main.js`). Through tsx every start compiled or
// looked up each source again: about 1 s of CPU more per service start (issue 30).
const NODE_ARGS = [join(ROOT, 'scripts/cli.mjs')];

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `oauth-service <args>` (the executable, from the current sources) to completion, in the repository or `cwd`.
 * OAUTH_CONFIG is `none` unless `env` sets it (undefined: unset, so that ./config.json of `cwd` is read).
 */
export function runService(args: string[], env: Record<string, string | undefined>, stdin = '', cwd = ROOT): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd, env: serviceEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const READY_TIMEOUT_MS = 90_000;

/** Starts `oauth-service serve` (from the current sources, in the repository or `cwd`) and resolves once /readyz answers 200. */
export async function startService(
  env: Record<string, string | undefined>,
  cwd = ROOT,
): Promise<{ child: ChildProcess; baseUrl: string; output: () => string; stdout: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_ARGS, 'serve'], {
    cwd,
    env: serviceEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
  });
  let output = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  // A first boot on an empty folder runs initdb and every migration in WebAssembly: on a busy CI machine (the fault
  // tests run beside the browser tests) that can take half a minute. The bound is against a hang, not a speed test.
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { child, baseUrl, output: () => output, stdout: () => stdout };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`service did not become ready:\n${output}`);
}

export interface ServiceFixture {
  /** DATA_DIR, DATABASE_URL (PostgreSQL only) and SESSION_SECRET for `serve`. */
  env: Record<string, string | undefined>;
  /** Deletes the data folder and drops the database. */
  dispose(): Promise<void>;
}

/** What a fresh `serve` needs: an empty data folder and, on PostgreSQL, an empty database it migrates itself. */
export async function serviceFixture(prefix: string): Promise<ServiceFixture> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  let testDatabase: TestDatabase | null = null;
  if (backend === 'postgresql') {
    testDatabase = await createTestDatabase({ migrated: false });
    await testDatabase.database.close();
  }
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: testDatabase?.url ?? undefined, SESSION_SECRET: 'x'.repeat(40) },
    async dispose() {
      rmSync(dataDir, { recursive: true, force: true });
      if (testDatabase) await testDatabase.drop().catch(() => undefined);
    },
  };
}

/**
 * Sends SIGTERM and resolves with the exit code once the process's output is read to its end ('close', not 'exit',
 * which can come first): the log lines it wrote last are in `output()` then.
 */
export function stopService(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null && child.stdout?.readableEnded !== false) return resolve(child.exitCode);
    child.once('close', (code) => resolve(code));
    if (child.exitCode === null) child.kill('SIGTERM');
  });
}

function serviceEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  // The metrics listener on a port of its own (METRICS_PORT 0): services of parallel tests never meet on 9464.
  // OAUTH_CONFIG none: the service runs in the repository, where a developer's own config.json would be read (issue 32).
  // PORT 0 unless a test names one: a `serve` expected to stop at boot must not stop instead on whatever holds 3000.
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'warn',
    PORT: '0',
    METRICS_PORT: '0',
    OAUTH_CONFIG: 'none',
  };
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
}
