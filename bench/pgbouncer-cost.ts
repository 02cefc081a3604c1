// What PgBouncer in transaction mode costs the service (issue 20): the same service, database and load, in three
// setups, measured in alternating rounds in one run:
//   direct            databaseUrl on PostgreSQL, named prepared statements (the default)
//   direct, unnamed   the same with databasePreparedStatements: false (the cost of parsing every statement)
//   pgbouncer         databaseUrl on PgBouncer (pool_mode transaction) in front of it, unnamed statements,
//                     databaseDirectUrl on PostgreSQL for migrations and advisory locks
// Scenarios: introspection of a live token (reads) and client_credentials token issue (writes).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AutocannonRequest } from 'autocannon';
import { loadConfig } from '../src/config/loader.js';
import { pgbouncerVersion, startPgBouncer } from '../scripts/lib/pgbouncer.js';
import { freePort } from '../scripts/lib/ports.js';
import { boundedLoad, summarizeRuns } from './bounded-load.js';
import { openBenchDatabase } from './postgres.js';
import { ensureCompiled, startServer, type ServerProcess } from './processes.js';
import { machineLines, markdownTable } from './report.js';
import { hotPathRequests } from './scenarios.js';
import { seedThroughDomain } from './seed.js';
import { alternatingRounds, benchLog, methodHeading, parseBenchArgs, runBench, writeReport, type Cleanups } from './service-harness.js';

const log = benchLog('pgbouncer');
const cleanups: Cleanups = [];
const USAGE = `usage: npm run bench:pgbouncer -- [--rounds N] [--requests N] [--connections N] [--pool N]
  --rounds N        alternating rounds of every setup and scenario (default 3)
  --requests N      requests per run (default 2000)
  --connections N   concurrent HTTP connections (default 16)
  --pool N          databasePoolSize of the service, and PgBouncer's server connections (default 10)
  --tsx             run the service from src/ with tsx instead of the compiled dist/
  --markdown-out F  also write the report to F`;

interface Setup {
  name: string;
  settings: (direct: string, bouncer: string) => Record<string, unknown>;
}
const SETUPS: Setup[] = [
  { name: 'direct', settings: (direct) => ({ databaseUrl: direct }) },
  { name: 'direct, unnamed', settings: (direct) => ({ databaseUrl: direct, databasePreparedStatements: false }) },
  {
    name: 'pgbouncer',
    settings: (direct, bouncer) => ({ databaseUrl: bouncer, databasePreparedStatements: false, databaseDirectUrl: direct }),
  },
];

async function main(args: NonNullable<Exclude<ReturnType<typeof parse>, 'help'>>): Promise<boolean> {
  const startedAt = new Date();
  const serviceEntry = args.useTsx ? ['--import', 'tsx', 'src/main.ts'] : [await ensureCompiled(log)];
  const database = await openBenchDatabase(log);
  cleanups.push(() => database.dispose());
  const bouncer = await startPgBouncer(database.url, args.pool);
  cleanups.unshift(() => bouncer.stop());
  log(`PgBouncer (transaction mode, ${args.pool} server connections) on ${bouncer.url}`);

  const work = mkdtempSync(join(tmpdir(), 'oauth-bench-pgbouncer-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  const keyEncryptionKey = randomBytes(32).toString('hex');
  const seed = await seedThroughDomain(database.url, loadConfig({ input: { databaseUrl: database.url } }), 0);

  const services: ServerProcess[] = [];
  for (const [i, setup] of SETUPS.entries()) {
    const port = await freePort();
    const configPath = join(work, `config-${i}.json`);
    const config = { host: '127.0.0.1', port, sessionSecret: randomBytes(32).toString('hex'), databasePoolSize: args.pool };
    writeFileSync(configPath, JSON.stringify({ ...config, ...setup.settings(database.url, bouncer.url) }, null, 2));
    const env = { LOG_LEVEL: 'warn', KEY_ENCRYPTION_KEY: keyEncryptionKey };
    const service = await startServer(setup.name, [...serviceEntry, 'serve', '--config', configPath], env, port);
    cleanups.unshift(() => service.stop());
    services.push(service);
    log(`${setup.name}: pid ${service.pid} on ${service.baseUrl}`);
  }

  const scenarios = hotPathRequests(seed);
  const measure = (service: ServerProcess, request: AutocannonRequest, amount: number) =>
    boundedLoad({ url: service.baseUrl, amount, connections: args.connections, pids: [service.pid, bouncer.pid], request: () => request });
  for (const service of services) for (const scenario of scenarios) await measure(service, scenario.request, 300);
  const { runsOf } = await alternatingRounds({
    rounds: args.rounds,
    targets: [0, 1, 2],
    scenarios,
    log,
    measure: (index, scenario) => measure(services[index]!, scenario.request, args.requests),
  });

  let valid = true;
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    const base = summarizeRuns(runsOf(scenario, 0));
    for (const [index, setup] of SETUPS.entries()) {
      const setupRuns = runsOf(scenario, index);
      const summary = summarizeRuns(setupRuns);
      // CPU per request is steadier than throughput on a shared machine: the service's, and PgBouncer's.
      const perRequest = (i: number) => ((setupRuns.reduce((sum, run) => sum + run.cpuMs[i]!, 0) / summary.count) * 1000).toFixed(0);
      const problems = Object.entries(summary.problems).map(([kind, n]) => `${kind}: ${n}`);
      if (problems.length > 0) valid = false;
      rows.push([
        scenario.name,
        setup.name,
        Math.round(summary.requestsPerSecond).toLocaleString('en-US'),
        (summary.requestsPerSecond / base.requestsPerSecond).toFixed(2),
        summary.p50.toFixed(2),
        summary.p99.toFixed(2),
        perRequest(0),
        setup.name === 'pgbouncer' ? perRequest(1) : '-',
        problems.join(', ') || 'none',
      ]);
    }
  }
  const report = [
    methodHeading('bench:pgbouncer', startedAt),
    ...machineLines(await database.describe()),
    `- ${pgbouncerVersion()} in transaction mode on loopback, ${args.pool} server connections; service pool ${args.pool}; ${args.rounds} rounds of ${args.requests} requests on ${args.connections} connections per setup and scenario, setups in rotating order`,
    '',
    markdownTable(
      ['scenario', 'setup', 'req/s', 'vs direct', 'p50 ms', 'p99 ms', 'service CPU µs/req', 'PgBouncer CPU µs/req', 'problems'],
      rows,
    ),
  ].join('\n');
  writeReport(report, args.markdownOut);
  return valid;
}

function parse(argv: string[]) {
  const parsed = parseBenchArgs(argv, ['rounds', 'requests', 'connections', 'pool']);
  if (parsed === 'help') return parsed;
  return {
    ...parsed,
    rounds: parsed.count('rounds', 3),
    requests: parsed.count('requests', 2000),
    connections: parsed.count('connections', 16),
    pool: parsed.count('pool', 10),
  };
}

await runBench({ usage: USAGE, parse, main, log, cleanups, invalidMessage: 'some requests failed: the figures are not valid' });
