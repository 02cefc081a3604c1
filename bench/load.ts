import autocannon, { type AutocannonRequest } from 'autocannon';
import type { Scenario } from './scenarios.js';

export interface Measurement {
  requestsPerSecond: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram rounds to whole ms). */
  p50: number;
  p99: number;
  responses: number;
  /** Anything but the expected status, plus connection errors and timeouts: a run with any is invalid. */
  problems: Record<string, number>;
}

export interface LoadSettings {
  connections: number;
  seconds: number;
}

/** One autocannon run: every response time, and what was not the expected answer. */
export interface LoadRun {
  latencies: Float64Array;
  seconds: number;
  problems: Record<string, number>;
}

export interface LoadHooks {
  /** Called every second of the run. */
  onTick?: () => void;
  /** Ends the run early when it settles: the run then lasts as long as that work. */
  until?: Promise<unknown>;
}

/** Drives one server with one scenario: keep-alive connections, pipelining 1, fixed duration. */
export async function runLoad(
  baseUrl: string,
  scenario: Scenario,
  { connections, seconds }: LoadSettings,
  { onTick, until }: LoadHooks = {},
): Promise<LoadRun> {
  const latencies = new Latencies();
  const instance = autocannon({ url: baseUrl, connections, pipelining: 1, duration: seconds, timeout: 10, ...scenario.load() });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, milliseconds: number) => latencies.add(milliseconds));
  if (onTick) instance.on('tick', onTick);
  void until?.then(
    () => instance.stop(),
    () => instance.stop(),
  );
  const result = await instance;
  const problems: Record<string, number> = {};
  const expected = [scenario.expectStatus, ...(scenario.alsoExpected ?? [])];
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    if (!expected.includes(Number(status))) problems[`HTTP ${status}`] = Number(count);
  }
  if (result.errors > 0) problems.errors = result.errors;
  if (result.timeouts > 0) problems.timeouts = result.timeouts;
  return { latencies: latencies.values(), seconds: result.duration, problems };
}

/** Several runs of one server as one measurement (rounds alternate between servers to share the noise). */
export function combine(runs: LoadRun[]): Measurement {
  const count = runs.reduce((sum, run) => sum + run.latencies.length, 0);
  const all = new Float64Array(count);
  let offset = 0;
  const problems: Record<string, number> = {};
  for (const run of runs) {
    all.set(run.latencies, offset);
    offset += run.latencies.length;
    for (const [kind, n] of Object.entries(run.problems)) problems[kind] = (problems[kind] ?? 0) + n;
  }
  all.sort();
  const percentile = (fraction: number) => (count === 0 ? NaN : all[Math.min(count - 1, Math.ceil(fraction * count) - 1)]!);
  return {
    requestsPerSecond: count / runs.reduce((sum, run) => sum + run.seconds, 0),
    p50: percentile(0.5),
    p99: percentile(0.99),
    responses: count,
    problems,
  };
}

/**
 * Warms each server up (discarded), then measures them in alternating rounds, A B A B ..., never both at
 * once: on a shared machine, load that comes and goes then hits both sides alike instead of one.
 */
export async function compareServers(
  servers: Array<{ baseUrl: string }>,
  scenario: Scenario,
  { connections, seconds, warmupSeconds, rounds }: LoadSettings & { warmupSeconds: number; rounds: number },
): Promise<Measurement[]> {
  for (const server of servers) await runLoad(server.baseUrl, scenario, { connections, seconds: warmupSeconds });
  const runs: LoadRun[][] = servers.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, server] of servers.entries())
      runs[i]!.push(await runLoad(server.baseUrl, scenario, { connections, seconds: seconds / rounds }));
  }
  return runs.map(combine);
}

/** One request outside the load (fetch), to check status and body before any timing. */
export async function probe(
  baseUrl: string,
  request: AutocannonRequest,
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method ?? 'GET',
    ...(request.headers && { headers: request.headers }),
    ...(request.body !== undefined && { body: request.body }),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, body: null };
  }
}

export const problemText = (problems: Record<string, number>) =>
  Object.entries(problems)
    .map(([kind, count]) => `${count} × ${kind}`)
    .join(', ');

/** A growable array of response times in milliseconds. */
export class Latencies {
  private buffer = new Float64Array(1 << 16);
  count = 0;

  add(value: number): void {
    if (this.count === this.buffer.length) {
      const grown = new Float64Array(this.buffer.length * 2);
      grown.set(this.buffer);
      this.buffer = grown;
    }
    this.buffer[this.count++] = value;
  }

  values(): Float64Array {
    return this.buffer.slice(0, this.count);
  }
}
