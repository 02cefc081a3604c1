// What the bench scripts (bench/run.ts, id-token-signing.ts, guard-modes.ts, dpop.ts, peers.ts, profile.ts, ...)
// share around their measurements: the progress log, options, the service started on a private PostgreSQL with
// its own KEY_ENCRYPTION_KEY (and seeded, as shipped), the CPU time of a process, rounds that alternate their
// targets, and the run of main() with its cleanups and exit code.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/loader.js';
import type { Config } from '../src/config/types.js';
import { createDatabase, type Database } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { freePort } from '../scripts/lib/ports.js';
import { openBenchDatabase } from './postgres.js';
import { ensureCompiled, startServer, type ServerProcess } from './processes.js';
import { machineLines } from './report.js';
import { seedThroughDomain, type Seed } from './seed.js';

export type Log = (line: string) => void;
/** Run in list order at the end (runBench): a script pushes what must go last and unshifts what must go first. */
export type Cleanups = Array<() => Promise<void>>;

/** Progress lines on stderr, `[name hh:mm:ss] line`. */
export const benchLog =
  (name: string): Log =>
  (line) =>
    process.stderr.write(`[${name} ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** The end of the usage of id-token-signing.ts, guard-modes.ts and dpop.ts: the options parseBenchArgs adds. */
export const COMMON_USAGE = `  --tsx             run the service from src/ with tsx instead of the compiled dist/
  --markdown-out F  also write the report to F
Environment: BENCH_DATABASE_URL reuses a PostgreSQL server (a fresh database is created and dropped on it);
without it a private cluster is started with scripts/pg-cluster.sh and stopped at the end.`;

export interface BenchArgs {
  useTsx: boolean;
  markdownOut: string | null;
  /** The integer value of `--name` (see countOption). */
  count(name: string, fallback: number, minimum?: number): number;
  flag(name: string): boolean;
}

/** The command line: `counts` (integer options), `flags` (booleans), and --help, --tsx and --markdown-out F. */
export function parseBenchArgs(argv: string[], counts: readonly string[], flags: readonly string[] = []): BenchArgs | 'help' {
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const name of counts) options[name] = { type: 'string' };
  for (const name of flags) options[name] = { type: 'boolean' };
  options.tsx = { type: 'boolean' };
  options['markdown-out'] = { type: 'string' };
  const { values } = parseArgs({ args: argv, options }) as { values: Record<string, string | boolean | undefined> };
  if (values.help) return 'help';
  return {
    useTsx: values.tsx === true,
    markdownOut: typeof values['markdown-out'] === 'string' ? values['markdown-out'] : null,
    count: (name, fallback, minimum = 1) => countOption(name, values[name] as string | undefined, fallback, minimum),
    flag: (name) => values[name] === true,
  };
}

/** Takes `name` (e.g. '--out-dir') and its value out of argv, so parseBenchArgs sees only the options it knows. */
export function takeOption(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at >= 0 ? argv.splice(at, 2)[1] : undefined;
}

/** An option's integer value: `fallback` when absent, an error when not an integer of at least `minimum`. */
export function countOption(name: string, value: string | undefined, fallback: number, minimum = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < minimum) throw new Error(`--${name}: an integer of at least ${minimum}, not ${value}`);
  return n;
}

/** The items starting at index `by`, wrapping around: the order of a round. */
export const rotate = <T>(items: readonly T[], by: number): T[] => items.map((_, i) => items[(i + by) % items.length]!);

/** The machine's load averages (1, 5, 15 min), as the reports print them. */
export const loadLine = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** Reads utime + stime of a process (clock ticks) from /proc/<pid>/stat. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5); fields[0] here is field 3 (state).
  return Number(fields[11]) + Number(fields[12]);
}
export const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
export const cpuMs = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;

export interface PreparedService {
  /** The machine lines of the report (machineLines with the database's description). */
  machine: string[];
  port: number;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  configPath: string;
  config: Readonly<Config>;
  /** The bench's own connection to the service's database (migrated), for seeding. */
  database: Database;
  /** Starts the service (serve --config, the log level asked for, the same KEY_ENCRYPTION_KEY); stopped by the cleanups. */
  start(): Promise<ServerProcess>;
  /** The service's METRICS_TOKEN: GET /metrics on its public port answers with it (Authorization: Bearer). */
  metricsToken: string;
}

/**
 * A fresh database (openBenchDatabase), a temporary folder with the service's config.json (host 127.0.0.1, a free
 * port, a random session secret, then `settings`), the config as the service will read it, and the bench's own
 * migrated connection to the database; the service itself starts with start(), after the script has seeded.
 */
export async function prepareService(options: {
  log: Log;
  cleanups: Cleanups;
  /** Prefix of the temporary folder's name. */
  workPrefix: string;
  useTsx: boolean;
  /** Pool size of the bench's own connection. */
  poolSize: number;
  settings: (where: { baseUrl: string }) => Record<string, unknown>;
  /** LOG_LEVEL of the service; null leaves the shipped default (info: a line per request). Default warn. */
  logLevel?: string | null;
}): Promise<PreparedService> {
  const { log, cleanups, useTsx, logLevel = 'warn' } = options;
  const serviceEntry = useTsx ? ['--import', 'tsx', 'src/main.ts'] : [await ensureCompiled(log)];
  const benchDatabase = await openBenchDatabase(log);
  cleanups.push(() => benchDatabase.dispose());
  const machine = machineLines(await benchDatabase.describe());
  const work = mkdtempSync(join(tmpdir(), options.workPrefix));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const keyEncryptionKey = randomBytes(32).toString('hex');
  const metricsToken = randomBytes(32).toString('hex');
  const configPath = join(work, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify(
      {
        databaseUrl: benchDatabase.url,
        host: '127.0.0.1',
        port,
        sessionSecret: randomBytes(32).toString('hex'),
        ...options.settings({ baseUrl }),
      },
      null,
      2,
    ),
  );
  const config = loadConfig({ path: configPath, env: { KEY_ENCRYPTION_KEY: keyEncryptionKey } });
  const database = await createDatabase({ databaseUrl: benchDatabase.url, dataDir: 'unused', poolSize: options.poolSize });
  cleanups.unshift(() => database.close());
  await migrate(database);

  const start = async () => {
    const service = await startServer(
      'service',
      [...serviceEntry, 'serve', '--config', configPath],
      { ...(logLevel !== null && { LOG_LEVEL: logLevel }), KEY_ENCRYPTION_KEY: keyEncryptionKey, METRICS_TOKEN: metricsToken },
      port,
    );
    cleanups.unshift(() => service.stop());
    log(`service (${useTsx ? 'tsx src/main.ts' : 'node dist/main.js'}) pid ${service.pid} on ${service.baseUrl}`);
    return service;
  };
  return { machine, port, baseUrl, configPath, config, database, start, metricsToken };
}

/**
 * The service as shipped (prepareService with only what it needs to run here: database, host, port, session
 * secret, and `settings` if given; the shipped log level; the bench's own pool of 2), seeded through the domain with
 * one confidential client and its tokens.
 */
export async function prepareSeededService(options: {
  log: Log;
  cleanups: Cleanups;
  workPrefix: string;
  useTsx: boolean;
  settings?: Record<string, unknown>;
}): Promise<{ prepared: PreparedService; seed: Seed }> {
  const { settings = {} } = options;
  const prepared = await prepareService({ ...options, poolSize: 2, settings: () => settings, logLevel: null });
  options.log('seeding through the domain: one confidential client and its access token');
  const seed = await seedThroughDomain(prepared.config.databaseUrl!, prepared.config, 1);
  return { prepared, seed };
}

/** The environment of bench/ceiling-server.ts: the service's database and pool size, and the seeded client. */
export const ceilingEnvironment = (config: Readonly<Config>, seed: Seed): Record<string, string> => ({
  DATABASE_URL: config.databaseUrl!,
  POOL_SIZE: String(config.databasePoolSize),
  CLIENT_ID: seed.clientId,
  CLIENT_SECRET_SHA256: createHash('sha256').update(seed.clientSecret).digest('hex'),
  APPLICATION_ID: String(seed.applicationId),
});

/**
 * `rounds` rounds in which every target, in an order rotating each round, measures every scenario once, so that
 * a change in the machine's load falls on all targets alike; runsOf gives a scenario's runs on a target.
 */
export async function alternatingRounds<T, S, R>(options: {
  rounds: number;
  targets: readonly T[];
  scenarios: readonly S[];
  log: Log;
  measure: (target: T, scenario: S) => Promise<R>;
}): Promise<{ runsOf: (scenario: S, target: T) => R[] }> {
  const runs = new Map(options.scenarios.map((scenario) => [scenario, new Map(options.targets.map((target) => [target, [] as R[]]))]));
  for (let round = 0; round < options.rounds; round += 1) {
    options.log(`round ${round + 1} of ${options.rounds}`);
    for (const target of rotate(options.targets, round)) {
      for (const scenario of options.scenarios)
        runs
          .get(scenario)!
          .get(target)!
          .push(await options.measure(target, scenario));
    }
  }
  return { runsOf: (scenario, target) => runs.get(scenario)!.get(target)! };
}

/** The report's first line: when the run started (UTC, to the minute) and the command with its options. */
export const methodHeading = (script: string, startedAt: Date) =>
  `### Method (${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, \`npm run ${script}${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\`)`;

/** The report (Markdown) to stdout, and to `markdownOut` too when set. */
export function writeReport(report: string, markdownOut: string | null): void {
  process.stdout.write(`\n${report}\n`);
  if (markdownOut) writeFileSync(markdownOut, `${report}\n`);
}

/**
 * The script's entry: the usage for --help; else main() with the cleanups run at its end and on SIGINT, exit code
 * 0 when main() returns true, 1 when it returns false (logging `invalidMessage`, if any) or throws.
 */
export async function runBench<O>(options: {
  usage: string;
  parse: (argv: string[]) => O | 'help';
  main: (options: O) => Promise<boolean>;
  log: Log;
  cleanups: Cleanups;
  invalidMessage?: string;
}): Promise<void> {
  const { log, cleanups } = options;
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup().catch((error: Error) => log(`cleanup failed: ${error.message}`));
  };
  const parsed = options.parse(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(`${options.usage}\n`);
    return;
  }
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));
  try {
    const valid = await options.main(parsed);
    if (!valid && options.invalidMessage) log(options.invalidMessage);
    process.exitCode = valid ? 0 : 1;
  } catch (error) {
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}
