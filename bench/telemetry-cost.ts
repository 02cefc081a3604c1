// npm run bench:telemetry [-- options]: what traces cost the service (issue 32 item 6). The same build twice on one
// database at once: tracing off (as shipped) and tracing on (OTEL_EXPORTER_OTLP_ENDPOINT to bench/otlp-span-counter.ts
// in this process, every other OTEL_* setting at the SDK's default: http/protobuf, every request sampled, the batch
// processor's 5 s delay and 2048-span queue). Each round sends a bounded load of issue 21's two hot paths to each in
// turn, the order rotating, and takes the service's CPU time from /proc: CPU per request is what a shared machine
// disturbs least. Progress goes to stderr, the report (Markdown) to stdout.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AutocannonRequest } from 'autocannon';
import { freePort } from '../scripts/lib/ports.js';
import { boundedLoad, spread, summarizeRuns, type BoundedRun } from './bounded-load.js';
import { startSpanCounter } from './otlp-span-counter.js';
import { startServer, type ServerProcess } from './processes.js';
import { markdownTable } from './report.js';
import { hotPathRequests } from './scenarios.js';
import {
  alternatingRounds,
  benchLog,
  COMMON_USAGE,
  loadLine,
  methodHeading,
  parseBenchArgs,
  prepareSeededService,
  runBench,
  writeReport,
  type BenchArgs,
  type Cleanups,
} from './service-harness.js';

const USAGE = `Usage: npm run bench:telemetry -- [options]

The service with traces off and on (exporting to a span counter in this process), alternated on the two hot paths.

  --rounds N        alternating rounds of each setup and hot path (default 6)
  --requests N      requests per run (default 8000)
  --warmup N        requests of warm-up per setup and hot path (default 2000)
  --connections N   keep-alive connections (default 16)
${COMMON_USAGE}`;

const log = benchLog('telemetry');
const cleanups: Cleanups = [];
const SETUPS = ['off', 'on'] as const;
type Setup = (typeof SETUPS)[number];

async function main(argv: BenchArgs): Promise<boolean> {
  const started = new Date();
  const rounds = argv.count('rounds', 6);
  const requests = argv.count('requests', 8000);
  const warmup = argv.count('warmup', 2000);
  const connections = argv.count('connections', 16);
  const { prepared, seed } = await prepareSeededService({ log, cleanups, workPrefix: 'oauth-telemetry-', useTsx: argv.useTsx });
  const counter = await startSpanCounter();
  cleanups.push(() => counter.close());
  const entry = argv.useTsx ? ['--import', 'tsx', 'src/main.ts'] : ['dist/main.js'];
  // Both services on the one database with the same key (as bench:profile-ab), each on a port of its own; the shipped
  // log level (info: a line per request).
  const keyEncryptionKey = randomBytes(32).toString('hex');
  const tracingEnv: Record<Setup, Record<string, string>> = {
    off: {},
    on: { OTEL_EXPORTER_OTLP_ENDPOINT: counter.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
  };
  const services = {} as Record<Setup, ServerProcess>;
  for (const setup of SETUPS) {
    const port = await freePort();
    const configPath = `${prepared.configPath}.${setup}.json`;
    writeFileSync(configPath, JSON.stringify({ ...JSON.parse(readFileSync(prepared.configPath, 'utf8')), port }));
    const env = { KEY_ENCRYPTION_KEY: keyEncryptionKey, ...tracingEnv[setup] };
    const service = await startServer(`tracing ${setup}`, [...entry, 'serve', '--config', configPath], env, port);
    cleanups.unshift(() => service.stop());
    services[setup] = service;
    log(`tracing ${setup}: pid ${service.pid} on ${service.baseUrl}`);
  }

  const scenarios = hotPathRequests(seed);
  const sent: Record<Setup, number> = { off: 0, on: 0 };
  const loads: string[] = [];
  const measure = async (setup: Setup, scenario: { name: string; request: AutocannonRequest }, amount: number) => {
    const before = loadLine();
    const run = await boundedLoad({
      url: services[setup].baseUrl,
      amount,
      connections,
      pids: [services[setup].pid],
      request: () => scenario.request,
    });
    sent[setup] += run.latencies.length;
    return { run, before, after: loadLine() };
  };
  log(`warm-up: ${warmup} requests of each hot path on each setup`);
  for (const setup of SETUPS) for (const scenario of scenarios) await measure(setup, scenario, warmup);
  const { runsOf } = await alternatingRounds({
    rounds,
    targets: SETUPS,
    scenarios,
    log,
    measure: async (setup, scenario) => {
      const measured = await measure(setup, scenario, requests);
      const { run } = measured;
      const cpu = cpuPerRequest(run);
      loads.push(`| ${scenario.name} | tracing ${setup} | ${cpu.toFixed(0)} | ${measured.before} | ${measured.after} |`);
      log(`${scenario.name}, tracing ${setup}: ${cpu.toFixed(0)} µs CPU/request, ${(run.latencies.length / run.seconds).toFixed(0)} req/s`);
      return run;
    },
  });
  // The batch processor exports what is left at most 5 s (its delay) after the last request.
  await sleep(6000);
  const spansPerRequest = counter.spans() / sent.on;

  let valid = counter.refused() === 0;
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    const base = summarizeRuns(runsOf(scenario, 'off'));
    const baseCpu = meanCpuPerRequest(runsOf(scenario, 'off'));
    for (const setup of SETUPS) {
      const runs = runsOf(scenario, setup);
      const summary = summarizeRuns(runs);
      const problems = Object.entries(summary.problems).map(([kind, n]) => `${kind}: ${n}`);
      if (problems.length > 0) valid = false;
      const cpu = meanCpuPerRequest(runs);
      rows.push([
        scenario.name,
        `tracing ${setup}`,
        Math.round(summary.requestsPerSecond).toLocaleString('en-US'),
        (summary.requestsPerSecond / base.requestsPerSecond).toFixed(2),
        summary.p50.toFixed(2),
        summary.p99.toFixed(2),
        cpu.toFixed(0),
        spread(runs.map(cpuPerRequest), (value) => value.toFixed(0)),
        setup === 'off' ? '-' : `+${(cpu - baseCpu).toFixed(0)} (${((cpu / baseCpu - 1) * 100).toFixed(0)} %)`,
        problems.join(', ') || 'none',
      ]);
    }
  }
  const rss = SETUPS.map((setup) => `tracing ${setup} ${(services[setup].rss() / 2 ** 20).toFixed(0)} MiB`).join(', ');
  const report = [
    methodHeading('bench:telemetry', started),
    ...prepared.machine,
    `- The service (${argv.useTsx ? 'tsx src/main.ts' : 'node dist/main.js'}) twice on one PostgreSQL database, log level info as shipped: tracing off (no OTEL_* variable) and on (OTEL_EXPORTER_OTLP_ENDPOINT to an OTLP/HTTP receiver in the bench process that counts spans; http/protobuf, every request sampled, batch delay 5 s, as the SDK defaults)`,
    `- ${warmup} requests of warm-up per setup and hot path, then ${rounds} rounds of ${requests} requests on ${connections} keep-alive connections per setup and hot path, the setups in rotating order; CPU (user + system) of the service process from /proc/<pid>/stat`,
    `- Spans received per request with tracing on: ${spansPerRequest.toFixed(1)} (${counter.spans().toLocaleString('en-US')} spans for ${sent.on.toLocaleString('en-US')} requests; fewer than the request makes when the batch processor's queue overflowed); exports refused by the receiver: ${counter.refused()}`,
    `- Resident memory at the end: ${rss}`,
    '',
    markdownTable(
      ['hot path', 'setup', 'req/s', 'vs off', 'p50 ms', 'p99 ms', 'CPU µs/req', 'per round: median (min … max)', 'CPU vs off', 'problems'],
      rows,
    ),
    '',
    'Load averages (1, 5, 15 min) before and after each measured run:',
    '',
    '| hot path | setup | CPU µs/req | load before | load after |',
    '|---|---|---|---|---|',
    ...loads,
    '',
    `Total time: ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeReport(report, argv.markdownOut);
  return valid;
}

const cpuPerRequest = (run: BoundedRun) => (run.cpuMs[0]! * 1000) / run.latencies.length;
const meanCpuPerRequest = (runs: BoundedRun[]) =>
  (runs.reduce((sum, run) => sum + run.cpuMs[0]!, 0) * 1000) / runs.reduce((sum, run) => sum + run.latencies.length, 0);

await runBench({
  usage: USAGE,
  parse: (args) => parseBenchArgs(args, ['rounds', 'requests', 'warmup', 'connections']),
  main,
  log,
  cleanups,
  invalidMessage: 'some requests failed or some exports were refused: the figures are not valid',
});
