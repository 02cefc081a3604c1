// npm run bench:dpop [-- options]: what DPoP (RFC 9449, issue 18) costs. On one service process and one private
// PostgreSQL: (1) the token endpoint, client_credentials, with a DPoP proof header against the same without it;
// (2) an API protected by the guard in remote mode (default cache, `dpop: {}`, bench/dpop-api.ts in its own
// process) with a DPoP-bound token and a proof against the same API with a Bearer token. Every DPoP request carries
// a fresh proof (new jti, current iat), made before each run, so each run is bounded by a count of requests
// (autocannon's setupRequest hands each request the next proof). Cases alternate in rounds. (3) In this process,
// the service's verifyDpopProof (src/oauth/tokens/dpop/dpop-proof.ts) taken apart: jose's signature verification with the
// embedded jwk, the RFC 7638 thumbprint, every check but the replay one, the replay check alone (the INSERT into
// oauth_dpop_proofs, stores.dpopProofs.remember) and the whole. Progress goes to stderr, the report to stdout.
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { domainDeps } from '../src/cli/context.js';
import { createApplication } from '../src/oauth/clients/applications.js';
import { verifyDpopProof } from '../src/oauth/tokens/dpop/dpop-proof.js';
import { freePort } from '../scripts/lib/ports.js';
import { proof, proofKey, type ProofKey } from './dpop-proofs.js';
import { boundedLoad, meanLatency, sampleStats, spread, summarizeRuns, type RunsSummary } from './bounded-load.js';
import { problemText } from './load.js';
import { startServer, type ServerProcess } from './processes.js';
import { markdownTable, ms, rate } from './report.js';
import { basicAuth } from './scenarios.js';
import {
  benchLog,
  COMMON_USAGE,
  parseBenchArgs,
  prepareService,
  rotate,
  methodHeading,
  runBench,
  writeReport,
  TICKS_PER_SECOND,
  type Cleanups,
} from './service-harness.js';

const USAGE = `Usage: npm run bench:dpop -- [options]

The token endpoint (client_credentials) and a guarded API (remote mode, cache, dpop: {}) with DPoP against the
same without it, on one service and one private PostgreSQL; then the service's proof check taken apart in
process: signature and thumbprint against the replay check (see bench/RESULTS.md).

  --requests N      measured requests per case (default 8000), split over the rounds
  --warmup N        requests per case before measuring, discarded (default 500)
  --rounds N        alternating rounds; each runs every case once, the order rotating (default 8)
  --connections N   concurrent keep-alive connections (default 8)
  --pool N          database connections of the service (default 4)
  --iterations N    in-process calls per microbenchmark (default 4000)
${COMMON_USAGE}`;

interface Options {
  requests: number;
  warmup: number;
  rounds: number;
  connections: number;
  poolSize: number;
  iterations: number;
  useTsx: boolean;
  markdownOut: string | null;
}

/** The in-process microbenchmarks alternate in this many rounds. */
const MICRO_ROUNDS = 5;

function parseOptions(argv: string[]): Options | 'help' {
  const args = parseBenchArgs(argv, ['requests', 'warmup', 'rounds', 'connections', 'pool', 'iterations']);
  if (args === 'help') return 'help';
  const { count } = args;
  const rounds = count('rounds', 8);
  return {
    requests: Math.ceil(count('requests', 8000) / rounds) * rounds,
    warmup: count('warmup', 500, 0),
    rounds,
    connections: count('connections', 8),
    poolSize: count('pool', 4),
    iterations: Math.ceil(count('iterations', 4000) / MICRO_ROUNDS) * MICRO_ROUNDS,
    useTsx: args.useTsx,
    markdownOut: args.markdownOut,
  };
}

const log = benchLog('bench:dpop');
const cleanups: Cleanups = [];
const FORM = 'application/x-www-form-urlencoded';
const API_PATH = '/api/notes';
const TOKEN_BODY = new URLSearchParams({ grant_type: 'client_credentials', scope: 'read' }).toString();

// ---------------------------------------------------------------- proofs

async function proofs(amount: number, make: () => Promise<string>): Promise<string[]> {
  const list: string[] = [];
  for (let i = 0; i < amount; i += 1) list.push(await make());
  return list;
}

// ---------------------------------------------------------------- HTTP cases

interface Case {
  name: string;
  kind: 'token' | 'api';
  dpop: boolean;
  target: ServerProcess;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** null: no proofs (the case without DPoP); else a fresh proof. */
  makeProof: (() => Promise<string>) | null;
  /** The problem of a 200 answer, if it is not what the case measures. */
  check: (body: string) => string | null;
}

interface Run {
  latencies: number[];
  seconds: number;
  /** CPU time (user + system) over the run, milliseconds: of the service, and of the API process. */
  serviceCpuMs: number;
  apiCpuMs: number;
  /** Time spent making the run's proofs before it (not part of the run). */
  proofSeconds: number;
  problems: Record<string, number>;
}

/** `amount` requests of one case on `connections` connections; a DPoP case gives each request the next fresh proof. */
async function load(entry: Case, amount: number, connections: number, service: ServerProcess, api: ServerProcess): Promise<Run> {
  const proofStarted = performance.now();
  // autocannon may send a few requests past `amount` before it stops: slack, so that none goes without a proof.
  const list = entry.makeProof ? await proofs(amount + connections * 2, entry.makeProof) : [];
  const proofSeconds = (performance.now() - proofStarted) / 1000;
  const run = await boundedLoad({
    url: entry.target.baseUrl,
    amount,
    connections,
    pids: [service.pid, api.pid],
    request: (problem) => ({
      method: entry.method,
      path: entry.path,
      headers: entry.headers,
      ...(entry.body !== undefined && { body: entry.body }),
      ...(entry.makeProof && {
        setupRequest: (request) => ({ ...request, headers: { ...entry.headers, dpop: list.pop() ?? 'proofs-exhausted' } }),
      }),
      onResponse: (status, body) => {
        if (status !== 200) return;
        const kind = entry.check(body);
        if (kind) problem(kind);
      },
    }),
  });
  const [serviceCpuMs, apiCpuMs] = run.cpuMs as [number, number];
  return { latencies: run.latencies, seconds: run.seconds, serviceCpuMs, apiCpuMs, proofSeconds, problems: run.problems };
}

/** One request outside the load, checked in full. */
async function probe(entry: Case): Promise<string | null> {
  const headers = { ...entry.headers, ...(entry.makeProof && { dpop: await entry.makeProof() }) };
  const response = await fetch(`${entry.target.baseUrl}${entry.path}`, {
    method: entry.method,
    headers,
    ...(entry.body !== undefined && { body: entry.body }),
  });
  const body = await response.text();
  if (response.status !== 200) return `${entry.name}: HTTP ${response.status} ${body}`;
  const problem = entry.check(body);
  if (problem) return `${entry.name}: ${problem} (${body})`;
  if (entry.makeProof) {
    // The same proof again must be refused as a replay (the service's table, the guard's cache).
    const again = await fetch(`${entry.target.baseUrl}${entry.path}`, {
      method: entry.method,
      headers,
      ...(entry.body !== undefined && { body: entry.body }),
    });
    const text = await again.text();
    if (
      again.status === 200 ||
      (!text.includes('invalid_dpop_proof') && !(again.headers.get('www-authenticate') ?? '').includes('invalid_dpop_proof'))
    )
      return `${entry.name}: a replayed proof got HTTP ${again.status} ${text}`;
  }
  return null;
}

interface Summary extends RunsSummary {
  serviceCpuPerRequest: number;
  apiCpuPerRequest: number;
}

function summarize(runs: Run[]): Summary {
  const summary = summarizeRuns(runs);
  return {
    ...summary,
    serviceCpuPerRequest: runs.reduce((sum, run) => sum + run.serviceCpuMs, 0) / summary.count,
    apiCpuPerRequest: runs.reduce((sum, run) => sum + run.apiCpuMs, 0) / summary.count,
  };
}

// ---------------------------------------------------------------- in process

interface Micro {
  name: string;
  /** What one call does, for the report. */
  what: string;
  /** Makes the inputs of one round (fresh proofs), outside the timing. */
  prepare: (amount: number) => Promise<unknown[]>;
  call: (input: unknown) => Promise<unknown>;
}

interface MicroSummary {
  name: string;
  what: string;
  count: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  cpuUs: number;
}

async function microbenchmarks(micros: Micro[], iterations: number): Promise<MicroSummary[]> {
  const samples = new Map(micros.map((micro) => [micro, { latencies: [] as number[], cpuUs: 0 }]));
  // Warm-up: jose's key import paths, the prepared statements, the JIT.
  for (const micro of micros) for (const input of await micro.prepare(300)) await micro.call(input);
  const perRound = iterations / MICRO_ROUNDS;
  for (let round = 0; round < MICRO_ROUNDS; round += 1) {
    for (const micro of rotate(micros, round)) {
      const inputs = await micro.prepare(perRound);
      const sample = samples.get(micro)!;
      const cpu = process.cpuUsage();
      for (const input of inputs) {
        const started = performance.now();
        await micro.call(input);
        sample.latencies.push((performance.now() - started) * 1000);
      }
      const used = process.cpuUsage(cpu);
      sample.cpuUs += used.user + used.system;
    }
  }
  return micros.map((micro) => {
    const { latencies, cpuUs } = samples.get(micro)!;
    const stats = sampleStats(latencies);
    return {
      name: micro.name,
      what: micro.what,
      count: stats.count,
      meanUs: stats.mean,
      p50Us: stats.p50,
      p99Us: stats.p99,
      cpuUs: cpuUs / stats.count,
    };
  });
}

// ---------------------------------------------------------------- main

async function main(options: Options): Promise<boolean> {
  const startedAt = new Date();
  const { machine, baseUrl, config, database, start } = await prepareService({
    log,
    cleanups,
    workPrefix: 'oauth-bench-dpop-',
    useTsx: options.useTsx,
    poolSize: 4,
    settings: (where) => ({ databasePoolSize: options.poolSize, baseUrl: where.baseUrl }),
  });
  const deps = domainDeps(database, config);
  const { application, plainSecret } = await createApplication(deps, {
    name: 'bench DPoP client (client_credentials)',
    redirectUri: 'https://client.example/callback',
    scopes: 'read',
    confidential: true,
  });
  const clientId = application.uid;
  const authorization = basicAuth(clientId, plainSecret!);

  const service = await start();
  const apiPort = await freePort();
  // The API introspects with the caller's own credentials (the default sameApplication rule).
  const api = await startServer(
    'guarded API',
    ['--import', 'tsx', 'bench/dpop-api.ts'],
    { PORT: String(apiPort), INTROSPECTION_URL: `${baseUrl}/oauth/introspect`, CLIENT_ID: clientId, CLIENT_SECRET: plainSecret! },
    apiPort,
  );
  cleanups.unshift(() => api.stop());
  log(`guarded API (remote mode, cache, dpop: {}) pid ${api.pid} on ${api.baseUrl}`);

  const tokenKey = await proofKey();
  const apiKey = await proofKey();
  const tokenUrl = `${baseUrl}/oauth/token`;
  const apiUrl = `${api.baseUrl}${API_PATH}`;
  const issue = async (key: ProofKey | null) => {
    const response = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': FORM, authorization, ...(key && { dpop: await proof(key, 'POST', tokenUrl) }) },
      body: TOKEN_BODY,
    });
    const body = (await response.json()) as { access_token?: string; token_type?: string };
    if (response.status !== 200 || typeof body.access_token !== 'string')
      throw new Error(`client_credentials: HTTP ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const bearerToken = (await issue(null)).access_token!;
  const bound = await issue(apiKey);
  if (bound.token_type !== 'DPoP') throw new Error(`a token requested with a proof came back as ${bound.token_type}`);
  const boundToken = bound.access_token!;

  const tokenCheck = (type: 'Bearer' | 'DPoP') => (body: string) =>
    body.includes(`"token_type":"${type}"`) ? null : `token_type not ${type}`;
  const apiCheck = (jkt: string | null) => (body: string) => {
    const answer = JSON.parse(body) as { client: unknown; jkt: unknown };
    return answer.client === clientId && answer.jkt === jkt ? null : 'unexpected answer';
  };
  const tokenHeaders = { 'content-type': FORM, authorization };
  const cases: Case[] = [
    {
      name: 'token, Bearer',
      kind: 'token',
      dpop: false,
      target: service,
      method: 'POST',
      path: '/oauth/token',
      headers: tokenHeaders,
      body: TOKEN_BODY,
      makeProof: null,
      check: tokenCheck('Bearer'),
    },
    {
      name: 'token, DPoP',
      kind: 'token',
      dpop: true,
      target: service,
      method: 'POST',
      path: '/oauth/token',
      headers: tokenHeaders,
      body: TOKEN_BODY,
      makeProof: () => proof(tokenKey, 'POST', tokenUrl),
      check: tokenCheck('DPoP'),
    },
    {
      name: 'API, Bearer',
      kind: 'api',
      dpop: false,
      target: api,
      method: 'GET',
      path: API_PATH,
      headers: { authorization: `Bearer ${bearerToken}` },
      makeProof: null,
      check: apiCheck(null),
    },
    {
      name: 'API, DPoP',
      kind: 'api',
      dpop: true,
      target: api,
      method: 'GET',
      path: API_PATH,
      headers: { authorization: `DPoP ${boundToken}` },
      makeProof: () => proof(apiKey, 'GET', apiUrl, boundToken),
      check: apiCheck(apiKey.jkt),
    },
  ];

  const problems = (await Promise.all(cases.map(probe))).filter((p): p is string => p !== null);
  for (const problem of problems) log(`PROBE: ${problem}`);
  if (problems.length) throw new Error('the probes did not get the answers the cases measure');
  log('probes: every case answers 200 as expected; a replayed proof is refused at the token endpoint and at the API');

  log(`warm-up: ${options.warmup} requests per case`);
  for (const entry of cases) if (options.warmup > 0) await load(entry, options.warmup, options.connections, service, api);

  const perRound = options.requests / options.rounds;
  const runs = new Map(cases.map((entry) => [entry, [] as Run[]]));
  for (let round = 0; round < options.rounds; round += 1) {
    for (const entry of rotate(cases, round)) {
      const run = await load(entry, perRound, options.connections, service, api);
      runs.get(entry)!.push(run);
      const n = run.latencies.length;
      log(
        `round ${round + 1}/${options.rounds} ${entry.name}: ${rate(n / run.seconds)} req/s, service CPU ${(run.serviceCpuMs / n).toFixed(3)} ms/req, API CPU ${(run.apiCpuMs / n).toFixed(3)} ms/req${Object.keys(run.problems).length ? `, PROBLEMS ${problemText(run.problems)}` : ''}`,
      );
    }
  }
  const summaries = new Map(cases.map((entry) => [entry, summarize(runs.get(entry)!)]));
  const proofsMade = [...runs.values()].flat().reduce((sum, run) => sum + run.proofSeconds, 0);

  // ---- in process: the service's verifyDpopProof taken apart
  log(`in process: ${options.iterations} calls per part, one at a time, in ${MICRO_ROUNDS} alternating rounds`);
  const microKey = await proofKey();
  const fresh = (amount: number) => proofs(amount, () => proof(microKey, 'POST', tokenUrl));
  const checkDeps = { config, now: deps.now, stores: deps.stores };
  const noReplayDeps = { ...checkDeps, stores: { ...deps.stores, dpopProofs: { remember: async () => true, seen: async () => false } } };
  const expiresAt = () => new Date(Date.now() + (config.dpop.proofMaxAgeSeconds + config.dpop.clockToleranceSeconds) * 1000);
  const micros: Micro[] = [
    {
      name: 'jose jwtVerify (EmbeddedJWK)',
      what: 'the signature check with the header jwk: key import + ES256 verification + JWT claims parsing',
      prepare: fresh,
      call: (input) => jwtVerify(input as string, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...config.dpop.algorithms] }),
    },
    {
      name: 'jose calculateJwkThumbprint',
      what: 'the RFC 7638 thumbprint (jkt) of the proof key',
      prepare: async (amount) => Array.from({ length: amount }, () => microKey.jwk),
      call: (input) => calculateJwkThumbprint(input as JWK, 'sha256'),
    },
    {
      name: 'verifyDpopProof, replay check off',
      what: 'every check of the service (header, signature, htm, htu, iat, jti, thumbprint, replay key hash) with a no-op remember',
      prepare: fresh,
      call: (input) => verifyDpopProof(noReplayDeps, input as string, { method: 'POST', url: tokenUrl }),
    },
    {
      name: 'dpopProofs.remember',
      what: 'the replay check alone: INSERT … ON CONFLICT DO NOTHING RETURNING into oauth_dpop_proofs (and every 200th call a bounded prune)',
      prepare: async (amount) => Array.from({ length: amount }, () => createHash('sha256').update(randomBytes(16)).digest('hex')),
      call: (input) => deps.stores.dpopProofs.remember(input as string, expiresAt()),
    },
    {
      name: 'verifyDpopProof, whole',
      what: 'what the token endpoint runs per proof: all of the above',
      prepare: fresh,
      call: (input) => verifyDpopProof(checkDeps, input as string, { method: 'POST', url: tokenUrl }),
    },
  ];
  const micro = await microbenchmarks(micros, options.iterations);
  for (const m of micro) log(`${m.name}: mean ${m.meanUs.toFixed(0)} µs, CPU ${m.cpuUs.toFixed(0)} µs per call`);
  const tableRows = await database.sql.query<{ n: number }>({
    name: 'bench_dpop_rows',
    text: 'SELECT count(*)::int AS n FROM oauth_dpop_proofs',
  });

  // ---- report
  const of = (kind: Case['kind'], dpop: boolean) => summaries.get(cases.find((c) => c.kind === kind && c.dpop === dpop)!)!;
  const delta = (value: number, digits = 2) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
  const roundDeltas = (kind: Case['kind'], value: (run: Run) => number, digits: number) => {
    const without = runs.get(cases.find((c) => c.kind === kind && !c.dpop)!)!;
    return spread(
      runs.get(cases.find((c) => c.kind === kind && c.dpop)!)!.map((run, round) => value(run) - value(without[round]!)),
      (v) => delta(v, digits),
    );
  };
  const meanOf = meanLatency;
  const serviceCpuOf = (run: Run) => run.serviceCpuMs / run.latencies.length;
  const apiCpuOf = (run: Run) => run.apiCpuMs / run.latencies.length;
  const valid = [...summaries.values()].every((s) => Object.keys(s.problems).length === 0);
  const microOf = (name: string) => micro.find((m) => m.name === name)!;
  const report = [
    methodHeading('bench:dpop', startedAt),
    ...machine,
    `- service: ${options.useTsx ? 'tsx src/main.ts serve' : 'node dist/main.js serve'} (LOG_LEVEL=warn, pool ${config.databasePoolSize}, dpop config defaults: algorithms ${config.dpop.algorithms.join(', ')}, proof window ${config.dpop.proofMaxAgeSeconds} s + ${config.dpop.clockToleranceSeconds} s, no nonces); one confidential client, opaque access tokens`,
    `- guarded API: bench/dpop-api.ts in its own process (node --import tsx, @oauth-service/guard from packages/guard/src), mode 'remote' with its default cache, \`dpop: {}\` (in-process jti replay cache), introspecting with the client's own credentials; GET ${API_PATH} answering {"client", "jkt"}; one unbound token for the Bearer case, one token bound to the API key (token_type DPoP) for the DPoP case`,
    `- autocannon in the bench's process: ${options.connections} keep-alive connections, pipelining 1; each run bounded by a count of requests; a DPoP request carries the next of proofs made just before its run (ES256, new jti, current iat; at the API with ath), ${proofsMade.toFixed(1)} s of proof making in all, outside the timing; per case ${options.warmup} requests of warm-up, then ${options.requests.toLocaleString('en-US')} measured in ${options.rounds} rounds of ${perRound.toLocaleString('en-US')} (every case once per round, the order rotating); every answer must be 200 with token_type Bearer or DPoP as the case asks, or the API's client and key thumbprint (null for Bearer); one probe per DPoP case checks that the same proof sent twice is refused the second time`,
    `- CPU: user + system time of the service and of the API process (/proc/<pid>/stat, ${TICKS_PER_SECOND} ticks/s) over each run ÷ its requests; PostgreSQL and the load generator are not counted`,
    '',
    "#### HTTP: with DPoP against without (Δ = DPoP − Bearer; per round: against the same round's Bearer run)",
    markdownTable(
      [
        'case',
        'requests',
        'req/s',
        'mean ms',
        'p50 ms',
        'p99 ms',
        'service CPU ms/req',
        'API CPU ms/req',
        'Δ mean ms: all; per round median (min … max)',
        'Δ CPU ms/req of the process checking the proof: all; per round median (min … max)',
        'errors',
      ],
      cases.map((entry) => {
        const s = summaries.get(entry)!;
        const base = of(entry.kind, false);
        const cpu =
          entry.kind === 'token' ? s.serviceCpuPerRequest - base.serviceCpuPerRequest : s.apiCpuPerRequest - base.apiCpuPerRequest;
        return [
          entry.name,
          s.count.toLocaleString('en-US'),
          rate(s.requestsPerSecond),
          ms(s.mean),
          ms(s.p50),
          ms(s.p99),
          s.serviceCpuPerRequest.toFixed(3),
          entry.kind === 'api' ? s.apiCpuPerRequest.toFixed(3) : '-',
          entry.dpop ? `${delta(s.mean - base.mean)}; ${roundDeltas(entry.kind, meanOf, 2)}` : '-',
          entry.dpop ? `${delta(cpu, 3)}; ${roundDeltas(entry.kind, entry.kind === 'token' ? serviceCpuOf : apiCpuOf, 3)}` : '-',
          Object.keys(s.problems).length ? problemText(s.problems) : 'none',
        ];
      }),
    ),
    '',
    `#### The service's proof check taken apart (in this process, ${options.iterations.toLocaleString('en-US')} calls per part, one at a time, ${MICRO_ROUNDS} alternating rounds, fresh ES256 proofs)`,
    markdownTable(
      ['part', 'mean µs', 'p50 µs', 'p99 µs', 'CPU µs/call (this process)', 'what'],
      micro.map((m) => [m.name, m.meanUs.toFixed(0), m.p50Us.toFixed(0), m.p99Us.toFixed(0), m.cpuUs.toFixed(0), m.what]),
    ),
    '',
    `Proof check without replay: ${microOf('verifyDpopProof, replay check off').meanUs.toFixed(0)} µs mean (${microOf('verifyDpopProof, replay check off').cpuUs.toFixed(0)} µs CPU); replay check: ${microOf('dpopProofs.remember').meanUs.toFixed(0)} µs mean, a round trip to PostgreSQL (${microOf('dpopProofs.remember').cpuUs.toFixed(0)} µs CPU in this process, PostgreSQL's own not counted); rows in oauth_dpop_proofs at the end: ${tableRows[0]?.n.toLocaleString('en-US') ?? '?'}.`,
    '',
    `Total time: ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeReport(report, options.markdownOut);
  return valid;
}

await runBench({
  usage: USAGE,
  parse: parseOptions,
  main,
  log,
  cleanups,
  invalidMessage: 'some answers were not the expected ones; the numbers above are not valid measurements',
});
