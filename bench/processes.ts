import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(import.meta.dirname, '..');

export interface ServerProcess {
  name: string;
  baseUrl: string;
  pid: number;
  /** Resident set size in bytes (VmRSS of /proc/<pid>/status). */
  rss(): number;
  /** What the process printed (diagnostics when it fails). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Compiles src/ to dist/ when dist/main.js is missing or older than any source file, so the benchmark
 * never measures stale code. tsc still emits when other files have type errors; that is reported, not fatal.
 */
export async function ensureCompiled(log: (line: string) => void): Promise<string> {
  const main = join(ROOT, 'dist/main.js');
  const newest = newestMtime(join(ROOT, 'src'));
  if (existsSync(main) && statSync(main).mtimeMs >= newest) return main;
  log('compiling src/ to dist/ (tsc -p tsconfig.build.json)');
  try {
    await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: ROOT });
  } catch (error) {
    const output = (error as { stdout?: string }).stdout ?? String(error);
    if (!existsSync(main)) throw new Error(`tsc produced no dist/main.js:\n${output}`);
    log(
      `tsc reported errors but emitted dist/ (first lines follow); benchmarking the emitted code\n${output.split('\n').slice(0, 5).join('\n')}`,
    );
  }
  return main;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(ts|js|json)$/.test(entry.name))
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Starts `node <args>` in the repository and resolves once GET /healthz answers 200. Its output goes through a pipe
 * to a process of its own that writes it to a file, as a container's log driver takes it: the services log a line
 * per request at the shipped level; the bench process (which also runs the load generator) must not spend its time
 * reading them, and a slow disk must not block the service's writes.
 */
export async function startServer(name: string, args: string[], env: Record<string, string>, port: number): Promise<ServerProcess> {
  const logDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const logPath = join(logDir, 'output.log');
  const logWriter = spawn('sh', ['-c', 'exec cat > "$0"', logPath], { stdio: ['pipe', 'ignore', 'inherit'] });
  // BENCH_NODE_ARGS: options for every server's Node.js, e.g. "--cpu-prof --cpu-prof-dir=DIR" to profile a scenario of
  // bench:peers (Node.js refuses --cpu-prof in NODE_OPTIONS).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: ROOT,
    // METRICS_PORT 0: the services of one bench (profile-ab's A and B, bench:ha's instances) each get a metrics
    // listener of their own instead of meeting on 9464.
    // OAUTH_CONFIG none: never a developer's config.json of the repository (the services get theirs with --config).
    env: { ...process.env, METRICS_PORT: '0', OAUTH_CONFIG: 'none', ...env },
    stdio: ['ignore', logWriter.stdin!, logWriter.stdin!],
  });
  logWriter.stdin!.destroy();
  const output = () => lastBytes(logPath, 20_000);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    name,
    baseUrl,
    pid: child.pid!,
    rss: () => readRss(child.pid!),
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(logDir, { recursive: true, force: true });
    },
  };
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode !== null) {
      const printed = output();
      rmSync(logDir, { recursive: true, force: true });
      throw new Error(`${name} exited with code ${child.exitCode}:\n${printed}`);
    }
    const ready = await fetch(`${baseUrl}/healthz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return server;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const printed = output();
  await server.stop();
  throw new Error(`${name} did not answer /healthz within 60 s:\n${printed}`);
}

export function readRss(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

function lastBytes(path: string, count: number): string {
  if (!existsSync(path)) return '';
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(size, count));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString();
  } finally {
    closeSync(fd);
  }
}
