// Load bounded by a count of requests (bench/id-token-signing.ts, bench/dpop.ts): for requests that cannot be
// repeated (single-use codes, DPoP proofs), each run sends `amount` requests, the CPU time of some processes is
// taken over it, and the runs of a case are summarized by their latencies; also the statistics of in-process
// samples and the per-round spread of a difference.
import { performance } from 'node:perf_hooks';
import autocannon, { type AutocannonOptions, type AutocannonRequest } from 'autocannon';
import type { Scenario } from './scenarios.js';
import { cpuMs, cpuTicks } from './service-harness.js';

export type Problems = Record<string, number>;

export interface BoundedRun {
  latencies: number[];
  /** From the run's start to its last response. */
  seconds: number;
  /** CPU time (user + system) over the run, milliseconds, of each process of `pids` in the same order. */
  cpuMs: number[];
  problems: Problems;
}

/**
 * `amount` requests on `connections` keep-alive connections (pipelining 1, timeout 10 s, stopped after 120 s);
 * `request` gets the function counting a problem (for its onResponse). Answers other than 200, errors and
 * timeouts are problems too.
 */
export async function boundedLoad(options: {
  url: string;
  amount: number;
  connections: number;
  /** Processes whose CPU time is taken over the run. */
  pids: number[];
  request: (problem: (kind: string) => void) => AutocannonRequest;
}): Promise<BoundedRun> {
  const { amount, pids } = options;
  const problems: Problems = {};
  const latencies: number[] = [];
  const problem = (kind: string) => (problems[kind] = (problems[kind] ?? 0) + 1);
  // autocannon ends a run on its sampling tick (sampleInt, 1 s by default): a short tick, and the run's time
  // is taken from its start to its last response, not to the tick.
  const autocannonOptions: AutocannonOptions & { amount: number; sampleInt: number } = {
    url: options.url,
    connections: Math.min(options.connections, amount),
    pipelining: 1,
    amount,
    sampleInt: 50,
    timeout: 10,
    requests: [options.request(problem)],
  };
  const ticks = pids.map(cpuTicks);
  const started = performance.now();
  const instance = autocannon(autocannonOptions);
  let last = started;
  instance.on('response', (_client: unknown, _status: number, _bytes: number, milliseconds: number) => {
    latencies.push(milliseconds);
    last = performance.now();
  });
  const guard = setTimeout(() => instance.stop(), 120_000);
  const result = await instance;
  clearTimeout(guard);
  const seconds = (last - started) / 1000;
  const used = pids.map((pid, i) => cpuMs(cpuTicks(pid) - ticks[i]!));
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    if (Number(status) !== 200) problems[`HTTP ${status}`] = Number(count);
  }
  if (result.errors > 0) problems.errors = result.errors;
  if (result.timeouts > 0) problems.timeouts = result.timeouts;
  return { latencies, seconds, cpuMs: used, problems };
}

/** `amount` requests of a scenario on one server: the run, the server's CPU time per request (µs), and req/s. */
export async function serverCpuPerRequest(
  server: { baseUrl: string; pid: number },
  scenario: Pick<Scenario, 'probe'>,
  options: { amount: number; connections: number },
) {
  const run = await boundedLoad({ url: server.baseUrl, ...options, pids: [server.pid], request: () => scenario.probe() });
  return { run, cpuUs: (run.cpuMs[0]! * 1000) / run.latencies.length, rps: (run.latencies.length / run.seconds).toFixed(0) };
}

export interface SampleStats {
  count: number;
  mean: number;
  p50: number;
  p99: number;
}

/** Count, mean and percentiles (nearest rank) of some samples; NaN percentiles for none. */
export function sampleStats(samples: readonly number[]): SampleStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const count = sorted.length;
  const percentile = (fraction: number) => (count === 0 ? NaN : sorted[Math.min(count - 1, Math.ceil(fraction * count) - 1)]!);
  return { count, mean: sorted.reduce((sum, value) => sum + value, 0) / count, p50: percentile(0.5), p99: percentile(0.99) };
}

export interface RunsSummary extends SampleStats {
  requestsPerSecond: number;
  problems: Problems;
}

/** The runs of one case together: every latency, responses per second of run time, the problems added up. */
export function summarizeRuns(runs: ReadonlyArray<Pick<BoundedRun, 'latencies' | 'seconds' | 'problems'>>): RunsSummary {
  const stats = sampleStats(runs.flatMap((run) => run.latencies));
  const problems: Problems = {};
  for (const run of runs) for (const [kind, n] of Object.entries(run.problems)) problems[kind] = (problems[kind] ?? 0) + n;
  return { ...stats, requestsPerSecond: stats.count / runs.reduce((sum, run) => sum + run.seconds, 0), problems };
}

/** The mean latency of one run. */
export const meanLatency = (run: Pick<BoundedRun, 'latencies'>) =>
  run.latencies.reduce((sum, value) => sum + value, 0) / run.latencies.length;

/** `median (min … max)` of per-round values, each written by `format`. */
export function spread(values: readonly number[], format: (value: number) => string): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${format(sorted[Math.floor((sorted.length - 1) / 2)]!)} (${format(sorted[0]!)} … ${format(sorted.at(-1)!)})`;
}
