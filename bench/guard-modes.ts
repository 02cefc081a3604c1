// npm run bench:guard [-- options]: what each mode of @oauth-service/guard costs an API (issue 17). One service
// (openid.enabled, one resource with token format jwt) issues one RFC 9068 JWT access token; three tiny APIs, each
// in its own process (bench/guard-api.ts), accept it: the guard in jwt mode, the guard in remote mode with its
// default cache, and a bare Fastify route verifying it with jose. Each is loaded in turn (rounds alternate), and
// the service's /metrics, read before and after each run, tell how many requests each API's load caused at the
// service. jwt mode must need none on the hot path: any introspection during its load, or more than
// MAX_JWKS_FETCHES fetches of the JWKS, fails the bench (exit 1). Progress goes to stderr, the report to stdout.
import { decodeProtectedHeader, decodeJwt } from 'jose';
import { domainDeps } from '../src/cli/context.js';
import { createApplication } from '../src/oauth/clients/applications.js';
import { createResource } from '../src/oauth/resources/resources.js';
import { ensureSigningKeys } from '../src/oauth/keys/signing-key-service.js';
import { freePort } from '../scripts/lib/ports.js';
import { combine, problemText, runLoad, type LoadRun, type Measurement } from './load.js';
import { startServer, type ServerProcess } from './processes.js';
import { markdownTable, ms, rate } from './report.js';
import { basicAuth, type Scenario } from './scenarios.js';
import {
  benchLog,
  COMMON_USAGE,
  parseBenchArgs,
  cpuMs,
  cpuTicks,
  prepareService,
  rotate,
  methodHeading,
  runBench,
  writeReport,
  type Cleanups,
} from './service-harness.js';

const USAGE = `Usage: npm run bench:guard -- [options]

An API protected by the guard in jwt mode, by the guard in remote mode (introspection, default cache) and by a
bare Fastify route verifying the same JWT with jose, each in its own process, loaded in alternating rounds; the
service's requests caused by each API's load are counted from its /metrics (see bench/RESULTS.md).

  --seconds N       measured seconds per target per round (default 10)
  --rounds N        alternating rounds; each runs every target once, the order rotating (default 2)
  --warmup N        seconds of load per target before measuring, discarded (default 3)
  --connections N   concurrent keep-alive connections (default 16)
  --jwt-introspect-always
                    checks the bench's own assertion: jwt mode also introspects every request (introspect:
                    'always'), so the bench must report FAILED and exit 1
${COMMON_USAGE}`;

interface Options {
  seconds: number;
  rounds: number;
  warmup: number;
  connections: number;
  jwtIntrospectAlways: boolean;
  useTsx: boolean;
  markdownOut: string | null;
}

function parseOptions(argv: string[]): Options | 'help' {
  const args = parseBenchArgs(argv, ['seconds', 'rounds', 'warmup', 'connections'], ['jwt-introspect-always']);
  if (args === 'help') return 'help';
  const { count } = args;
  return {
    seconds: count('seconds', 10),
    rounds: count('rounds', 2),
    warmup: count('warmup', 3, 0),
    connections: count('connections', 16),
    jwtIntrospectAlways: args.flag('jwt-introspect-always'),
    useTsx: args.useTsx,
    markdownOut: args.markdownOut,
  };
}

const log = benchLog('bench:guard');
const cleanups: Cleanups = [];
/** The identifier of the protected API (RFC 8707): the same for the three targets, which verify the same token. */
const RESOURCE = 'https://notes.bench.example/api';
const PATH = '/api/notes';
/** jwt mode's keys are fetched before the load (the probe); a refetch or two during it would still be no hot-path call. */
const MAX_JWKS_FETCHES = 2;
const ROUTES = {
  introspect: '/oauth/introspect',
  jwks: '/oauth/jwks',
  discovery: '/.well-known/oauth-authorization-server',
} as const;

type TargetKind = 'jwt' | 'remote' | 'jose';

interface Target {
  kind: TargetKind;
  name: string;
  api: ServerProcess;
}

/** Requests the service served during some load, by route pattern (its own /metrics excluded). */
type RouteCounts = Record<string, number>;

interface Run {
  load: LoadRun;
  /** CPU time (user + system) of the API process over the run, milliseconds; likewise of the service. */
  apiCpuMs: number;
  serviceCpuMs: number;
  serviceRequests: RouteCounts;
}

// ---------------------------------------------------------------- service metrics and CPU

/** The service, with the METRICS_TOKEN its public port serves /metrics with. */
type MeteredService = ServerProcess & { metricsToken: string };

/** http_requests_total of the service by route pattern, summed over methods and statuses. */
async function requestsByRoute(service: MeteredService): Promise<RouteCounts> {
  const response = await fetch(`${service.baseUrl}/metrics`, { headers: { authorization: `Bearer ${service.metricsToken}` } });
  if (response.status !== 200) throw new Error(`GET /metrics: HTTP ${response.status}`);
  const counts: RouteCounts = {};
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('http_requests_total{')) continue;
    const route = /[{,]route="((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (route !== undefined && Number.isFinite(value)) counts[route] = (counts[route] ?? 0) + value;
  }
  return counts;
}

function difference(after: RouteCounts, before: RouteCounts): RouteCounts {
  const delta: RouteCounts = {};
  for (const [route, n] of Object.entries(after)) {
    const d = n - (before[route] ?? 0);
    if (d > 0 && route !== '/metrics') delta[route] = d;
  }
  return delta;
}

function add(into: RouteCounts, more: RouteCounts): RouteCounts {
  for (const [route, n] of Object.entries(more)) into[route] = (into[route] ?? 0) + n;
  return into;
}

// ---------------------------------------------------------------- load

function scenario(token: string): Scenario {
  const request = { method: 'GET' as const, path: PATH, headers: { authorization: `Bearer ${token}` } };
  return { name: `GET ${PATH}`, load: () => ({ requests: [request] }), probe: () => request, expectStatus: 200 };
}

async function measure(service: MeteredService, target: Target, token: string, seconds: number, connections: number): Promise<Run> {
  const before = await requestsByRoute(service);
  const apiTicks = cpuTicks(target.api.pid);
  const serviceTicks = cpuTicks(service.pid);
  const load = await runLoad(target.api.baseUrl, scenario(token), { connections, seconds });
  const apiCpuMs = cpuMs(cpuTicks(target.api.pid) - apiTicks);
  const serviceCpuMs = cpuMs(cpuTicks(service.pid) - serviceTicks);
  const serviceRequests = difference(await requestsByRoute(service), before);
  return { load, apiCpuMs, serviceCpuMs, serviceRequests };
}

/** One request outside the load: 200 with the caller's client id, and 401 without a token. */
async function probe(target: Target, token: string, clientId: string): Promise<string | null> {
  const url = `${target.api.baseUrl}${PATH}`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.text();
  if (response.status !== 200) return `${target.name}: HTTP ${response.status} ${body}`;
  if ((JSON.parse(body) as { client: unknown }).client !== clientId) return `${target.name}: answered ${body}`;
  const without = await fetch(url);
  if (without.status !== 401) return `${target.name}: HTTP ${without.status} without a token`;
  const forged = await fetch(url, { headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } });
  if (forged.status !== 401) return `${target.name}: HTTP ${forged.status} for a token with a broken signature`;
  return null;
}

// ---------------------------------------------------------------- main

async function main(options: Options): Promise<boolean> {
  const startedAt = new Date();
  const { machine, baseUrl, config, database, start, metricsToken } = await prepareService({
    log,
    cleanups,
    workPrefix: 'oauth-bench-guard-',
    useTsx: options.useTsx,
    poolSize: 2,
    settings: (where) => ({
      baseUrl: where.baseUrl,
      openid: { enabled: true },
      // The default rules plus the opt-in audience rule: the resource's server client (the remote API) may
      // introspect the tokens meant for it.
      introspection: {
        allow: [{ rule: 'sameApplication' }, { rule: 'tokenApplication' }, { rule: 'publicToken' }, { rule: 'audience' }],
      },
    }),
  });

  // Seeded through the domain, as the CLI does (apps create; resources create --token-format jwt --server-client-id).
  const deps = domainDeps(database, config);
  await ensureSigningKeys(deps, config.keys.algorithms);
  const application = (name: string) =>
    createApplication(deps, { name, redirectUri: 'https://client.example/callback', scopes: 'read', confidential: true });
  const apiClient = await application('bench notes API (introspects for remote mode)');
  const caller = await application('bench caller (client_credentials)');
  const registered = await createResource(deps, {
    uri: RESOURCE,
    name: 'bench notes API',
    scopes: 'read',
    tokenFormat: 'jwt',
    accessTokenLifetime: '3600',
    serverClientId: apiClient.application.uid,
  });
  log(`resource ${registered.uri} (format ${registered.tokenFormat}, server client ${registered.serverClientId})`);

  const service = Object.assign(await start(), { metricsToken });

  // The one token every target verifies: client_credentials with resource= (RFC 8707), a JWT (RFC 9068).
  const issued = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(caller.application.uid, caller.plainSecret!),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read', resource: RESOURCE }).toString(),
  });
  const issuedBody = (await issued.json()) as { access_token?: string; expires_in?: number };
  if (issued.status !== 200 || typeof issuedBody.access_token !== 'string')
    throw new Error(`client_credentials: HTTP ${issued.status} ${JSON.stringify(issuedBody)}`);
  const token = issuedBody.access_token;
  const header = decodeProtectedHeader(token);
  const claims = decodeJwt(token);
  if (header.typ !== 'at+jwt') throw new Error(`the access token is not an RFC 9068 JWT (typ ${String(header.typ)})`);
  log(`token: ${header.alg} at+jwt, aud ${JSON.stringify(claims.aud)}, expires in ${issuedBody.expires_in} s, ${token.length} characters`);

  const discovery = (await (await fetch(`${baseUrl}${ROUTES.discovery}`)).json()) as { issuer: string; jwks_uri: string };
  const environment = {
    ISSUER: discovery.issuer,
    RESOURCE,
    JWKS_URL: new URL(new URL(discovery.jwks_uri).pathname, baseUrl).href,
    INTROSPECTION_URL: `${baseUrl}${ROUTES.introspect}`,
    CLIENT_ID: apiClient.application.uid,
    CLIENT_SECRET: apiClient.plainSecret!,
  };
  const names: Record<TargetKind, string> = {
    jwt: "guard mode 'jwt'",
    remote: "guard mode 'remote' (cache)",
    jose: 'bare Fastify + jose',
  };
  const targets: Target[] = [];
  for (const kind of ['jwt', 'remote', 'jose'] as const) {
    const apiPort = await freePort();
    const api = await startServer(
      names[kind],
      ['--import', 'tsx', 'bench/guard-api.ts'],
      {
        ...environment,
        GUARD_MODE: kind,
        PORT: String(apiPort),
        ...(kind === 'jwt' && options.jwtIntrospectAlways && { JWT_INTROSPECT: 'always' }),
      },
      apiPort,
    );
    cleanups.unshift(() => api.stop());
    targets.push({ kind, name: names[kind], api });
    log(`${names[kind]}: pid ${api.pid} on ${api.baseUrl}`);
  }

  const problems = (await Promise.all(targets.map((target) => probe(target, token, caller.application.uid)))).filter(
    (p): p is string => p !== null,
  );
  for (const problem of problems) log(`PROBE: ${problem}`);
  if (problems.length) throw new Error('the probes did not get the answers the bench measures');

  // The counting itself, checked: one introspection by the API client (what the remote guard asks) must show as
  // exactly one more request on /oauth/introspect, and answer active with the resource as aud.
  const counted = await requestsByRoute(service);
  const answer = await fetch(environment.INTROSPECTION_URL, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(environment.CLIENT_ID, environment.CLIENT_SECRET),
    },
    body: new URLSearchParams({ token }).toString(),
  });
  const answerBody = (await answer.json()) as { active?: boolean; aud?: unknown };
  const seen = difference(await requestsByRoute(service), counted);
  if (answerBody.active !== true || JSON.stringify(seen) !== JSON.stringify({ [ROUTES.introspect]: 1 }))
    throw new Error(`counter check: introspection answered ${JSON.stringify(answerBody)}, /metrics counted ${JSON.stringify(seen)}`);
  log(`counter check: one introspection (aud ${JSON.stringify(answerBody.aud)}) counted as ${JSON.stringify(seen)}`);

  const runs = new Map<Target, Run[]>(targets.map((target) => [target, []]));
  const warmups = new Map<Target, Run>();
  if (options.warmup > 0) {
    log(`warm-up: ${options.warmup} s per target`);
    for (const target of targets) warmups.set(target, await measure(service, target, token, options.warmup, options.connections));
  }
  for (let round = 0; round < options.rounds; round += 1) {
    for (const target of rotate(targets, round)) {
      const run = await measure(service, target, token, options.seconds, options.connections);
      runs.get(target)!.push(run);
      const responses = run.load.latencies.length;
      log(
        `round ${round + 1}/${options.rounds} ${target.name}: ${rate(responses / run.load.seconds)} req/s, API CPU ${(run.apiCpuMs / responses).toFixed(3)} ms/req, service requests ${JSON.stringify(run.serviceRequests)}${Object.keys(run.load.problems).length ? `, PROBLEMS ${problemText(run.load.problems)}` : ''}`,
      );
    }
  }

  interface Row {
    target: Target;
    measurement: Measurement;
    apiCpuPerRequest: number;
    serviceCpuMs: number;
    /** Over the measured rounds only, and over warm-up and rounds together. */
    measured: RouteCounts;
    all: RouteCounts;
    perRound: number[];
  }
  const rows: Row[] = targets.map((target) => {
    const list = runs.get(target)!;
    const measurement = combine(list.map((run) => run.load));
    const measured = list.reduce((sum, run) => add(sum, run.serviceRequests), {} as RouteCounts);
    const warm = warmups.get(target);
    return {
      target,
      measurement,
      apiCpuPerRequest: list.reduce((sum, run) => sum + run.apiCpuMs, 0) / measurement.responses,
      serviceCpuMs: list.reduce((sum, run) => sum + run.serviceCpuMs, 0),
      measured,
      all: add({ ...measured }, warm?.serviceRequests ?? {}),
      perRound: list.map((run) => run.load.latencies.length / run.load.seconds),
    };
  });
  const row = (kind: TargetKind) => rows.find((r) => r.target.kind === kind)!;
  const jwt = row('jwt');
  const count = (counts: RouteCounts, route: string) => counts[route] ?? 0;
  const others = (counts: RouteCounts) =>
    Object.entries(counts)
      .filter(([route]) => !Object.values(ROUTES).includes(route as (typeof ROUTES)[keyof typeof ROUTES]))
      .reduce((sum, [, n]) => sum + n, 0);
  const jwtIntrospections = count(jwt.all, ROUTES.introspect);
  const jwtJwksFetches = count(jwt.all, ROUTES.jwks);
  const hotPathOk = jwtIntrospections === 0 && jwtJwksFetches <= MAX_JWKS_FETCHES;
  const valid = rows.every((r) => Object.keys(r.measurement.problems).length === 0);
  const ratio = (a: Row, b: Row) => (a.measurement.requestsPerSecond / b.measurement.requestsPerSecond).toFixed(2);
  const ratioPerRound = (a: Row, b: Row) => a.perRound.map((value, i) => (value / b.perRound[i]!).toFixed(2)).join(', ');
  const totalSeconds = (Date.now() - startedAt.getTime()) / 1000;

  const report = [
    methodHeading('bench:guard', startedAt),
    ...machine,
    `- service: ${options.useTsx ? 'tsx src/main.ts serve' : 'node dist/main.js serve'} (LOG_LEVEL=warn, openid.enabled, introspection rules the defaults plus audience, default pool); resource ${RESOURCE} with token format jwt, lifetime 3600 s, server client the API's client; one token from client_credentials with resource= (${header.alg}, typ at+jwt, ${token.length} characters)`,
    `- targets, each its own process (node --import tsx bench/guard-api.ts, @oauth-service/guard from packages/guard/src), GET ${PATH} answering {"client": ...} for a token with scope read: guard mode 'jwt' (issuer, resource${options.jwtIntrospectAlways ? ", and introspect 'always' for --jwt-introspect-always" : ''}); guard mode 'remote' (introspectionUrl, the API client's credentials, resource, default cache: 30 s active, capped by exp); bare Fastify + jose jwtVerify with createRemoteJWKSet (iss, aud, typ at+jwt, alg, required claims, scope)`,
    `- autocannon in the bench's process: ${options.connections} keep-alive connections, pipelining 1, the same token on every request; per target ${options.warmup} s of warm-up (discarded), then ${options.rounds} rounds of ${options.seconds} s, every target once per round, the order rotating; every answer must be 200`,
    `- service requests: http_requests_total of the service's /metrics by route, read before and after every run (its own /metrics scrapes left out); API CPU: user + system time of the API process (/proc/<pid>/stat) over the measured runs ÷ responses`,
    '',
    `#### APIs at ${options.connections} connections (requests at the service: during the measured rounds; in brackets with the warm-up)`,
    markdownTable(
      [
        'target',
        'responses',
        'req/s',
        'per round req/s',
        'p50 ms',
        'p99 ms',
        'API CPU ms/req',
        '/oauth/introspect',
        '/oauth/jwks',
        'discovery',
        'other service requests',
        'service CPU s',
        'errors',
      ],
      rows.map((r) => [
        r.target.name,
        r.measurement.responses.toLocaleString('en-US'),
        rate(r.measurement.requestsPerSecond),
        r.perRound.map(rate).join(', '),
        ms(r.measurement.p50),
        ms(r.measurement.p99),
        r.apiCpuPerRequest.toFixed(3),
        `${count(r.measured, ROUTES.introspect)} (${count(r.all, ROUTES.introspect)})`,
        `${count(r.measured, ROUTES.jwks)} (${count(r.all, ROUTES.jwks)})`,
        `${count(r.measured, ROUTES.discovery)} (${count(r.all, ROUTES.discovery)})`,
        `${others(r.measured)} (${others(r.all)})`,
        (r.serviceCpuMs / 1000).toFixed(2),
        Object.keys(r.measurement.problems).length ? problemText(r.measurement.problems) : 'none',
      ]),
    ),
    '',
    `Ratios (req/s; per round in brackets): jwt / bare jose **${ratio(jwt, row('jose'))}** (${ratioPerRound(jwt, row('jose'))}), jwt / remote **${ratio(jwt, row('remote'))}** (${ratioPerRound(jwt, row('remote'))}).`,
    '',
    `Hot-path check (jwt mode, warm-up and rounds): ${jwtIntrospections} introspection requests (must be 0), ${jwtJwksFetches} JWKS fetches (at most ${MAX_JWKS_FETCHES}): ${hotPathOk ? 'ok' : 'FAILED'}.`,
    '',
    `Total time: ${totalSeconds.toFixed(0)} s.`,
  ].join('\n');
  writeReport(report, options.markdownOut);
  if (!hotPathOk) log(`jwt mode called the service on the hot path: ${JSON.stringify(jwt.all)}`);
  if (!valid) log('some answers were not 200; the numbers above are not valid measurements');
  return valid && hotPathOk;
}

await runBench({
  usage: USAGE,
  parse: parseOptions,
  main,
  log,
  cleanups,
});
