// Throughput of 1 vs 3 service instances on the HA topology of scripts/cluster.sh (issue 20): etcd, three Patroni
// nodes with synchronous replication, HAProxy and PgBouncer (transaction mode), and the instances each in its own
// network namespace, writing through PgBouncer and reading from HAProxy's /sync port. The load comes from the
// root namespace (autocannon over the bridge): with 1 instance all of it goes to svc1, with 3 it is split evenly,
// in alternating rounds. On a machine of few cores everything (PostgreSQL x3, Patroni, HAProxy, PgBouncer, the
// instances and the load generator) shares them, so the figure that carries over is requests per core.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AutocannonRequest } from 'autocannon';
import { loadConfig } from '../src/config/loader.js';
import { boundedLoad, summarizeRuns, type BoundedRun } from './bounded-load.js';
import { ensureCompiled, ROOT } from './processes.js';
import { markdownTable } from './report.js';
import { hotPathRequests } from './scenarios.js';
import { seedThroughDomain } from './seed.js';
import {
  alternatingRounds,
  benchLog,
  loadLine,
  methodHeading,
  parseBenchArgs,
  runBench,
  writeReport,
  type Cleanups,
} from './service-harness.js';

const log = benchLog('ha');
const cleanups: Cleanups = [];
const run = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts/cluster.sh');
const PORT = 8080;
const USAGE = `usage: npm run bench:ha -- [--rounds N] [--requests N] [--connections N]
  --rounds N        alternating rounds of 1 and 3 instances per scenario (default 3)
  --requests N      requests per run, split evenly over the instances (default 3000)
  --connections N   concurrent HTTP connections in all (default 24)
  --tsx             run the service from src/ with tsx instead of the compiled dist/
  --markdown-out F  also write the report to F
Needs root (network namespaces) and patroni, etcd-server, haproxy, pgbouncer (scripts/cluster.sh install).
OHA_PREFIX, OHA_SUBNET and OHA_PORT_BASE choose the cluster's names, subnet and ports (scripts/cluster.sh).`;

/** The busy and total jiffies of the whole machine (/proc/stat's cpu line): the share of every core in use. */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

async function main(args: NonNullable<Exclude<ReturnType<typeof parse>, 'help'>>): Promise<boolean> {
  const startedAt = new Date();
  const load = loadLine();
  const serviceEntry = args.useTsx ? ['--import', 'tsx', join(ROOT, 'src/main.ts')] : [await ensureCompiled(log)];
  const dir = mkdtempSync(join(tmpdir(), `${process.env.OHA_PREFIX ?? 'oha'}-bench-`));
  const cluster = (command: string, ...rest: string[]) => run('bash', [SCRIPT, command, ...rest], { timeout: 300_000 });
  log(`scripts/cluster.sh up ${dir}`);
  cleanups.push(async () => void (await cluster('down', dir)));
  await cluster('up', dir);
  const status = Object.fromEntries(
    (await cluster('status', dir)).stdout.split('\n').flatMap((line) => {
      const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      return match ? [[match[1]!, match[2]!]] : [];
    }),
  );
  const seed = await seedThroughDomain(status.WRITE_URL!, loadConfig({ input: { databaseUrl: status.WRITE_URL! } }), 0);
  // The instances get only these (and cluster.sh the OHA_* names): nothing of this process's environment leaks in.
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => /^OHA_/.test(key))),
    PATH: process.env.PATH ?? '',
    OAUTH_CONFIG: 'none',
    DATABASE_URL: status.SVC_PGBOUNCER_URL!,
    DATABASE_PREPARED_STATEMENTS: 'false',
    DATABASE_DIRECT_URL: status.SVC_WRITE_URL!,
    DATABASE_READ_URL: status.SVC_READ_URL!,
    SESSION_SECRET: randomBytes(32).toString('hex'),
    HOST: '0.0.0.0',
    PORT: String(PORT),
    LOG_LEVEL: 'warn',
  };
  const urls: string[] = [];
  const pids: number[] = [];
  for (const n of [1, 2, 3]) {
    await run('bash', [SCRIPT, 'start-service', String(n), dir, '--', process.execPath, ...serviceEntry, 'serve'], { env, cwd: ROOT });
    urls.push(`http://${/address=(\S+)/.exec(status[`SERVICE${n}`]!)![1]}:${PORT}`);
    pids.push(Number(readFileSync(join(dir, `pids/svc${n}.pid`), 'utf8')));
  }
  for (const url of urls) await waitReady(url, 90_000);
  log(`instances ready: ${urls.join(' ')}; leader ${status.LEADER}`);

  const scenarios = hotPathRequests(seed);
  /** `amount` requests split over the first `instances` instances at once; machine CPU over the whole run. */
  async function measure(instances: number, request: AutocannonRequest, amount: number) {
    const before = machineTicks();
    const parts = await Promise.all(
      urls.slice(0, instances).map((url, i) =>
        boundedLoad({
          url,
          amount: Math.floor(amount / instances),
          connections: Math.ceil(args.connections / instances),
          pids: [pids[i]!],
          request: () => request,
        }),
      ),
    );
    const after = machineTicks();
    const combined: BoundedRun = {
      latencies: parts.flatMap((part) => part.latencies),
      seconds: Math.max(...parts.map((part) => part.seconds)),
      cpuMs: [parts.reduce((sum, part) => sum + part.cpuMs[0]!, 0)],
      problems: Object.assign({}, ...parts.map((part) => part.problems)) as BoundedRun['problems'],
    };
    return { run: combined, machineBusy: (after.busy - before.busy) / (after.total - before.total) };
  }
  for (const scenario of scenarios) for (const instances of [1, 3]) await measure(instances, scenario.request, 600);
  const { runsOf } = await alternatingRounds({
    rounds: args.rounds,
    targets: [1, 3],
    scenarios,
    log,
    measure: (instances, scenario) => measure(instances, scenario.request, args.requests),
  });

  const cores = cpus().length;
  let valid = true;
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    const one = summarizeRuns(runsOf(scenario, 1).map((r) => r.run));
    for (const instances of [1, 3]) {
      const measured = runsOf(scenario, instances);
      const summary = summarizeRuns(measured.map((r) => r.run));
      const busy = measured.reduce((sum, r) => sum + r.machineBusy, 0) / measured.length;
      const serviceCpu = (measured.reduce((sum, r) => sum + r.run.cpuMs[0]!, 0) / summary.count) * 1000;
      const problems = Object.entries(summary.problems).map(([kind, n]) => `${kind}: ${n}`);
      if (problems.length > 0) valid = false;
      rows.push([
        scenario.name,
        String(instances),
        Math.round(summary.requestsPerSecond).toLocaleString('en-US'),
        (summary.requestsPerSecond / one.requestsPerSecond).toFixed(2),
        Math.round(summary.requestsPerSecond / cores).toLocaleString('en-US'),
        `${Math.round(busy * 100)}%`,
        Math.round(summary.requestsPerSecond / (busy * cores)).toLocaleString('en-US'),
        serviceCpu.toFixed(0),
        summary.p50.toFixed(2),
        summary.p99.toFixed(2),
        problems.join(', ') || 'none',
      ]);
    }
  }
  const report = [
    methodHeading('bench:ha', startedAt),
    `- Machine: ${cores} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}; load average at start ${load}, at end ${loadLine()}`,
    `- scripts/cluster.sh: 3 × PostgreSQL 15 under Patroni (synchronous_mode), HAProxy, PgBouncer (transaction mode), etcd; instances in their own namespaces (${args.useTsx ? 'tsx src/main.ts' : 'node dist/main.js'}), writes through PgBouncer, reads on HAProxy's /sync port; load from the root namespace over the bridge`,
    `- ${args.rounds} rounds of ${args.requests} requests on ${args.connections} connections in all (split evenly over the instances), 1 and 3 instances in rotating order`,
    `- req/s per core: over all ${cores} cores; per busy core: over the cores' measured busy share (/proc/stat, every process on the machine, the load generator and other users included)`,
    '',
    markdownTable(
      [
        'scenario',
        'instances',
        'req/s',
        'vs 1',
        'req/s per core',
        'machine CPU busy',
        'req/s per busy core',
        'instances CPU µs/req',
        'p50 ms',
        'p99 ms',
        'problems',
      ],
      rows,
    ),
  ].join('\n');
  writeReport(report, args.markdownOut);
  return valid;
}

async function waitReady(url: string, ms: number) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url}/readyz not 200 after ${ms} ms`);
}

function parse(argv: string[]) {
  const parsed = parseBenchArgs(argv, ['rounds', 'requests', 'connections']);
  if (parsed === 'help') return parsed;
  return {
    ...parsed,
    rounds: parsed.count('rounds', 3),
    requests: parsed.count('requests', 3000),
    connections: parsed.count('connections', 24),
  };
}

await runBench({ usage: USAGE, parse, main, log, cleanups, invalidMessage: 'some requests failed: the figures are not valid' });
