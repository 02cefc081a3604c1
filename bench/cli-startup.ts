// npm run bench:cli -- [--before DIR] [--runs N] [--only pglite|socket|postgresql] [--write] [--serve] [--floor]:
// how long one CLI command that touches the database takes (`apps list`; with --write also `apps update 1 --name one`,
// a write through Prisma, which the listing no longer loads; with --serve also `serve` until /healthz answers, its CPU
// time then that of its process so far, on a data folder and on PostgreSQL; with --floor, on the data folder, a
// process that only opens it, counts and closes it, bench/pglite-floor.mjs: the embedded database's own start, under
// any command there), as `node dist/main.js` (the image's `oauth-service`) and as `npm run cli --` in a checkout, on
// the three ways to its data: a PGlite data folder opened by the command, the same folder through a running server's
// socket, and PostgreSQL (BENCH_DATABASE_URL's server, else a private cluster). With --before DIR (a tree with
// node_modules and a compiled dist/main.js, e.g. `git archive <commit>` unpacked beside a node_modules link) both
// trees run in alternation, run for run, so that the machine's load falls on both alike (the floor, the same program
// for both, runs on this tree's folder only); CPU time (user + sys of the command and its children) is reported
// besides the wall time, as the load disturbs it less. Issue 30; bench/RESULTS.md "Issue 30: CLI".
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { writeConfigValidator } from '../scripts/lib/config-validator-code.mjs';
import { freePort } from '../scripts/lib/ports.js';
import { openBenchDatabase } from './postgres.js';
import { ensureCompiled, ROOT } from './processes.js';
import { cpuMs, cpuTicks } from './service-harness.js';

interface Tree {
  name: string;
  root: string;
}

type Way = 'pglite' | 'socket' | 'postgresql';
type Runner = 'node dist/main.js' | 'npm run cli --';

interface Sample {
  wallMs: number;
  cpuMs: number;
}

const USAGE = 'Usage: npm run bench:cli -- [--before DIR] [--runs N] [--only pglite|socket|postgresql] [--write] [--serve] [--floor]';
const LIST = ['apps', 'list'];
// The first application again under its own name: a write that changes nothing, so every run does the same.
const WRITE = ['apps', 'update', '1', '--name', 'one'];
const log = (line: string) => process.stderr.write(`${line}\n`);

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
}

/** Runs one command in `tree`; its output goes to a file (shown if it fails), its CPU time comes from bash's `times`. */
function measure(tree: Tree, command: string[], env: Record<string, string>): Promise<Sample> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  const output = join(folder, 'output');
  // `times` prints the shell's own user/sys times, then those of its children (the command and everything it ran).
  const script = '"$@" >"$OUTPUT" 2>&1; code=$?; times; exit $code';
  const started = performance.now();
  const child = spawn('bash', ['-c', script, 'bash', ...command], {
    cwd: tree.root,
    env: { ...process.env, ...env, OUTPUT: output },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let times = '';
  child.stdout!.on('data', (chunk: Buffer) => (times += chunk.toString()));
  return new Promise((done, fail) => {
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      const printed = existsSync(output) ? readFileSync(output, 'utf8') : '';
      rmSync(folder, { recursive: true, force: true });
      if (code !== 0) return fail(new Error(`${tree.name}: ${command.join(' ')} exited with ${code}:\n${printed}`));
      const children = times.trim().split('\n')[1] ?? '';
      const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(([, minutes, rest]) => Number(minutes) * 60 + Number(rest));
      done({ wallMs, cpuMs: (seconds[0]! + seconds[1]!) * 1000 });
    });
  });
}

/** `serve` of `tree` on the place's data, from its spawn until /healthz answers 200; stopped (SIGTERM) after. */
async function measureServe(tree: Tree, env: Record<string, string>): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const server = spawn(process.execPath, ['dist/main.js', 'serve'], {
    cwd: tree.root,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let printed = '';
  server.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise((resolve) => server.once('exit', resolve));
  try {
    for (;;) {
      if (server.exitCode !== null) throw new Error(`${tree.name}: serve exited with ${server.exitCode}:\n${printed}`);
      if (performance.now() - started > 60_000) throw new Error(`${tree.name}: serve did not answer within 60 s:\n${printed}`);
      const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (answered) return { wallMs: performance.now() - started, cpuMs: cpuMs(cpuTicks(server.pid!)) };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    server.kill('SIGTERM');
    await exited;
  }
}

const commandOf = (runner: Runner, args: string[]) =>
  runner === 'npm run cli --' ? ['npm', 'run', '--silent', 'cli', '--', ...args] : ['node', 'dist/main.js', ...args];

/** The environment of one tree in one database setting: its own data folder or its own PostgreSQL database. */
interface Place {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

async function pgliteFolder(tree: Tree): Promise<Place> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-cli-${tree.name}-`));
  const env = { DATA_DIR: dataDir };
  // The first command creates and migrates the database; a few applications make `apps list` list something.
  for (const name of ['one', 'two', 'three'])
    await measure(tree, commandOf('node dist/main.js', ['apps', 'create', '--name', name, '--redirect-uri', 'https://a.example/cb']), env);
  return { env, dispose: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** A server of the tree on its folder, which CLI commands then reach through the folder's socket. */
async function withServer(tree: Tree, place: Place): Promise<Place> {
  const server: ChildProcess = spawn(process.execPath, ['dist/main.js', 'serve'], {
    cwd: tree.root,
    env: { ...process.env, ...place.env, PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const socket = join(place.env.DATA_DIR!, '.s.PGSQL.5432');
  for (let waited = 0; !existsSync(socket); waited += 100) {
    if (waited > 60_000 || server.exitCode !== null) throw new Error(`${tree.name}: the server did not open ${socket}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    env: place.env,
    async dispose() {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
      await place.dispose();
    },
  };
}

/** One private cluster for both trees' databases (openBenchDatabase would start one per call), unless given one. */
async function sharedCluster(): Promise<() => Promise<void>> {
  if (process.env.BENCH_DATABASE_URL) return async () => undefined;
  const folder = mkdtempSync(join(tmpdir(), 'bench-cli-pg-'));
  const script = join(ROOT, 'scripts/pg-cluster.sh');
  const { stdout } = await promisify(execFile)('bash', [script, 'start', folder]);
  process.env.BENCH_DATABASE_URL = stdout.trim().split('\n').at(-1)!;
  return async () => {
    await promisify(execFile)('bash', [script, 'stop', folder]);
    rmSync(folder, { recursive: true, force: true });
    delete process.env.BENCH_DATABASE_URL;
  };
}

async function postgresDatabase(tree: Tree): Promise<Place> {
  const database = await openBenchDatabase(log);
  const env = { DATABASE_URL: database.url };
  await measure(tree, commandOf('node dist/main.js', ['migrate']), env);
  for (const name of ['one', 'two', 'three'])
    await measure(tree, commandOf('node dist/main.js', ['apps', 'create', '--name', name, '--redirect-uri', 'https://a.example/cb']), env);
  return { env, dispose: () => database.dispose() };
}

/** One row a tree of the table: what runs, on which ways to the data, for which trees. */
interface Scenario {
  label: string;
  ways: readonly Way[];
  /** A program that is not the tree's (the floor): measured once, on this tree's place. */
  thisTreeOnly: boolean;
  run(tree: Tree, env: Record<string, string>): Promise<Sample>;
}

const RUNNERS = ['node dist/main.js', 'npm run cli --'] as const;
const EVERY_WAY = ['pglite', 'socket', 'postgresql'] as const;
const commandScenario = (runner: Runner, args: string[]): Scenario => ({
  label: `${runner} ${args.join(' ')}`,
  ways: EVERY_WAY,
  thisTreeOnly: false,
  run: (tree, env) => measure(tree, commandOf(runner, args), env),
});
// As the image runs it, and not on the socket: its folder is a running server's already.
const SERVE: Scenario = { label: 'node dist/main.js serve', ways: ['pglite', 'postgresql'], thisTreeOnly: false, run: measureServe };
const FLOOR: Scenario = {
  label: 'node bench/pglite-floor.mjs',
  ways: ['pglite'],
  thisTreeOnly: true,
  run: (tree, env) => measure(tree, ['node', join(ROOT, 'bench/pglite-floor.mjs')], env),
};

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${Math.round(value)} ms`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help')) return void process.stdout.write(`${USAGE}\n`);
  const runs = Number(option(args, '--runs') ?? 10);
  const only = option(args, '--only');
  const before = option(args, '--before');
  const commands = [LIST, ...(args.includes('--write') ? [WRITE] : [])];
  const scenarios = [
    ...RUNNERS.flatMap((runner) => commands.map((command) => commandScenario(runner, command))),
    ...(args.includes('--serve') ? [SERVE] : []),
    ...(args.includes('--floor') ? [FLOOR] : []),
  ];
  await ensureCompiled(log);
  // As `npm run build` makes it: the config validator written as code (ensureCompiled runs tsc alone).
  await writeConfigValidator(join(ROOT, 'dist/config'));
  const trees: Tree[] = [...(before ? [{ name: 'before', root: resolve(before) }] : []), { name: 'after', root: ROOT }];
  for (const tree of trees) if (!existsSync(join(tree.root, 'dist/main.js'))) throw new Error(`${tree.root}/dist/main.js is missing`);
  const databases = EVERY_WAY.filter((database) => !only || only === database);
  const rows: string[] = [];
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  for (const database of databases) {
    const stopCluster = database === 'postgresql' ? await sharedCluster() : async () => undefined;
    const places = new Map<Tree, Place>();
    for (const tree of trees) {
      const place = database === 'postgresql' ? await postgresDatabase(tree) : await pgliteFolder(tree);
      places.set(tree, database === 'socket' ? await withServer(tree, place) : place);
    }
    try {
      for (const scenario of scenarios.filter(({ ways }) => ways.includes(database))) {
        const measured = scenario.thisTreeOnly ? trees.filter((tree) => tree.root === ROOT) : trees;
        const samples = new Map<Tree, Sample[]>(measured.map((tree) => [tree, []]));
        const run = (tree: Tree) => scenario.run(tree, places.get(tree)!.env);
        // One run each first: tsx's and the source build's caches, the page cache.
        for (const tree of measured) await run(tree);
        for (let round = 0; round < runs; round += 1) {
          const order = round % 2 === 0 ? measured : [...measured].reverse();
          for (const tree of order) samples.get(tree)!.push(await run(tree));
        }
        for (const tree of measured) {
          const wall = samples.get(tree)!.map((sample) => sample.wallMs);
          const cpu = samples.get(tree)!.map((sample) => sample.cpuMs);
          const row = `| \`${scenario.label}\` | ${database} | ${tree.name} | ${ms(mean(wall))} | ${ms(median(wall))} | ${ms(Math.min(...wall))} | ${ms(mean(cpu))} | ${ms(median(cpu))} |`;
          rows.push(row);
          log(row);
        }
      }
    } finally {
      for (const place of places.values()) await place.dispose();
      await stopCluster();
    }
  }
  process.stdout.write(
    [
      `${new Date().toISOString()}, Node.js ${process.version}, ${availableParallelism()} cores, load average ${load} at the start and ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')} at the end; ${runs} runs each, alternated`,
      '',
      '| command | database | tree | wall mean | wall median | wall min | CPU mean | CPU median |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
