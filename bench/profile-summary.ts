// Where a request's CPU time goes, from a V8 .cpuprofile (node --cpu-prof): self time aggregated by category and
// by function. Used by bench/profile.ts; also a command:
//   npx tsx bench/profile-summary.ts FILE.cpuprofile [--from US --to US] [--requests N]
// --from/--to keep the samples of a window (the profile's own clock: CLOCK_MONOTONIC microseconds, the clock of
// process.hrtime); --requests N (the requests in the window) turns the samples into microseconds of one request.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { markdownTable } from './report.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Owners of CPU time, tested on each frame from the leaf towards the root: the first frame that one of them
 * matches decides the sample's category, so node:net or stream work is charged to what called it (the pg
 * driver, Fastify's reply, pino), and crypto to hashing wherever it is called from.
 */
const CATEGORIES: Array<[string, (frame: CallFrame) => boolean]> = [
  ['(garbage collector)', (f) => f.functionName === '(garbage collector)'],
  ['(idle)', (f) => f.functionName === '(idle)'],
  ['(program: V8/native outside JS)', (f) => f.functionName === '(program)'],
  ['hashing and random (node:crypto)', (f) => /node:internal\/crypto|node:crypto/.test(f.url)],
  ['logging (pino, sonic-boom)', (f) => /node_modules\/(pino|sonic-boom|thread-stream|pino-std-serializers)\//.test(f.url)],
  ['metrics', (f) => /(src|dist)\/http\/(metrics\/|plugins\/metrics)/.test(f.url)],
  [
    'rate limit (@fastify/rate-limit, api-rate-limits)',
    (f) => /@fastify\/rate-limit|plugins\/api-rate-limits|failure-limiter|attempt-limits/.test(f.url),
  ],
  ['security headers hook', (f) => /plugins\/security-headers/.test(f.url)],
  [
    'JSON serialisation (fast-json-stringify, JSON.stringify)',
    (f) => /fast-json-stringify|fastify\/lib\/(reply-serialize|schemas)/.test(f.url) || (f.functionName === 'stringify' && f.url === ''),
  ],
  ['schema validation (ajv)', (f) => /node_modules\/ajv|fastify\/lib\/validation/.test(f.url)],
  [
    'form parsing (content-type parser, querystring)',
    (f) => /@fastify\/formbody|fast-querystring|fastify\/lib\/content-type|plugins\/forms|node:querystring|node:internal\/url/.test(f.url),
  ],
  [
    'pg driver (query, protocol, pool)',
    (f) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|@prisma\/adapter-pg)\//.test(f.url),
  ],
  ['Prisma client', (f) => /node_modules\/(@prisma|\.prisma)\/|(src|dist)\/storage\/generated/.test(f.url)],
  ['storage layer (src/storage)', (f) => /(src|dist)\/storage\//.test(f.url)],
  ['client authentication (src)', (f) => /client-authentication|read-oauth-parameters|basic/.test(f.url)],
  ['OAuth domain (src/oauth)', (f) => /(src|dist)\/oauth\//.test(f.url)],
  ['routes and controllers (src/http)', (f) => /(src|dist)\/http\//.test(f.url)],
  ['routing (find-my-way)', (f) => /find-my-way/.test(f.url)],
  ['Fastify core (hooks, request, reply)', (f) => /node_modules\/(fastify|avvio|light-my-request|@fastify)\//.test(f.url)],
  ['node HTTP (parser, server, outgoing)', (f) => /node:_http_|node:http/.test(f.url)],
];
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString']);
const UNOWNED = 'node I/O and other (net, streams, timers, promises)';

export interface Summary {
  /** Milliseconds of samples (idle excluded) in the window. */
  busyMs: number;
  categories: Array<{ name: string; ms: number }>;
  functions: Array<{ name: string; ms: number }>;
}

export function summarize(profile: CpuProfile, window?: { from: number; to: number }): Summary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const categoryOf = new Map<number, string>();
  const categorize = (id: number): string => {
    const known = categoryOf.get(id);
    if (known) return known;
    let found = UNOWNED;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const match = CATEGORIES.find(([, test]) => test(frame));
      if (match) {
        found = match[0];
        break;
      }
    }
    // A native socket write (the writev or write system call over loopback) is shown apart from its owner's JS.
    const leaf = byId.get(id)!.callFrame;
    if (leaf.url === '' && SOCKET_WRITES.has(leaf.functionName)) found = `${found}: socket write (system call)`;
    categoryOf.set(id, found);
    return found;
  };
  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  let time = profile.startTime;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    time += profile.timeDeltas[i] ?? 0;
    // The time up to the next sample belongs to this one.
    const delta = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (window && (time < window.from || time > window.to)) return;
    const category = categorize(id);
    if (category === '(idle)') return;
    busy += delta;
    categories.set(category, (categories.get(category) ?? 0) + delta);
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url ? ` ${url.replace(/^file:\/\/.*?\/(node_modules|src|dist)\//, '$1/')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + delta);
  });
  const sorted = (map: Map<string, number>) => [...map].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
  return { busyMs: busy, categories: sorted(categories), functions: sorted(functions) };
}

/**
 * The category table and the top functions: share of the main thread's busy samples, and µs of main-thread time
 * per request when the window's request count is known. Samples are wall time on the main thread, so they
 * include time the thread was runnable but descheduled; on a loaded machine that lands mostly on the socket
 * writes (a loopback write wakes the receiver, which may preempt the writer).
 */
export function summaryTables(summary: Summary, requests: number | null, topFunctions = 20): string {
  const share = (ms: number) => `${((100 * ms) / summary.busyMs).toFixed(1)} %`;
  const perRequest = (ms: number) => (requests === null ? '-' : ((ms * 1000) / requests).toFixed(1));
  return [
    markdownTable(
      ['category (self time, leaf-most owner)', 'share of busy samples', 'µs per request'],
      [
        ...summary.categories.map(({ name, ms }) => [name, share(ms), perRequest(ms)]),
        ['total (main thread busy)', '100 %', perRequest(summary.busyMs)],
      ],
    ),
    '',
    markdownTable(
      ['function (self time)', 'share', 'µs per request'],
      summary.functions.slice(0, topFunctions).map(({ name, ms }) => [name.replaceAll('|', '\\|'), share(ms), perRequest(ms)]),
    ),
  ].join('\n');
}

/** µs of one request by category, side by side for two servers (e.g. the service and the database ceiling). */
export function comparisonTable(a: ProfiledServer, b: ProfiledServer): string {
  const us = (p: ProfiledServer, category: string) => {
    const ms = p.summary.categories.find((c) => c.name === category)?.ms ?? 0;
    return (ms * 1000) / p.requests;
  };
  const us2 = (p: ProfiledServer) => (p.summary.busyMs * 1000) / p.requests;
  const names = [...new Set([...a.summary.categories, ...b.summary.categories].map((c) => c.name))];
  names.sort((x, y) => us(a, y) - us(b, y) - (us(a, x) - us(b, x)));
  return markdownTable(
    ['category (self time, leaf-most owner)', `${a.name} µs/request`, `${b.name} µs/request`, 'difference µs'],
    [
      ...names.map((name) => [name, us(a, name).toFixed(1), us(b, name).toFixed(1), (us(a, name) - us(b, name)).toFixed(1)]),
      ['total: main thread busy (samples)', ...[us2(a), us2(b), us2(a) - us2(b)].map((n) => n.toFixed(1))],
      ['CPU of the process, all threads (/proc)', a.cpuUs.toFixed(0), b.cpuUs.toFixed(0), (a.cpuUs - b.cpuUs).toFixed(0)],
    ],
  );
}

export interface ProfiledServer {
  name: string;
  summary: Summary;
  /** Requests in the profiled window. */
  requests: number;
  /** CPU time (/proc, all threads) of one request, microseconds. */
  cpuUs: number;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { from: { type: 'string' }, to: { type: 'string' }, requests: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new Error('usage: bench/profile-summary.ts FILE.cpuprofile [--from US --to US] [--requests N]');
  const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as CpuProfile;
  const window = values.from && values.to ? { from: Number(values.from), to: Number(values.to) } : undefined;
  const perRequest = values.requests ? Number(values.requests) : null;
  process.stdout.write(`${summaryTables(summarize(profile, window), perRequest)}\n`);
}
