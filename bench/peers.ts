// npm run bench:peers [-- options]: issue 21's side-by-side run. The service (default configuration, as
// shipped) against the database ceiling (bench/ceiling-server.ts) and node-oidc-provider with its in-memory
// adapter (bench/peer-oidc-provider.ts), on the same load generator, one server at a time in alternating
// rounds. Progress goes to stderr, the report (Markdown) to stdout.
import type { AutocannonRequest } from 'autocannon';
import { freePort } from '../scripts/lib/ports.js';
import { combine, probe, problemText, runLoad, type LoadRun, type Measurement } from './load.js';
import { startServer, type ServerProcess } from './processes.js';
import { isValid, markdownTable, ms, rate } from './report.js';
import { basicAuth, type Scenario } from './scenarios.js';
import {
  benchLog,
  type BenchArgs,
  ceilingEnvironment,
  COMMON_USAGE,
  loadLine,
  methodHeading,
  parseBenchArgs,
  prepareSeededService,
  rotate,
  runBench,
  writeReport,
  type Cleanups,
} from './service-harness.js';

const USAGE = `Usage: npm run bench:peers -- [options]

The service, the database ceiling (bare Fastify + pg) and node-oidc-provider side by side (issue 21).

  --duration S      seconds measured per scenario and server, split over the rounds (default 20)
  --rounds N        alternating rounds; each round rotates which server goes first (default 2)
  --warmup S        seconds of warm-up of each server before each scenario (default 3)
  --connections N   keep-alive connections (default 16)
${COMMON_USAGE}`;

const log = benchLog('peers');
const cleanups: Cleanups = [];
const FORM = 'application/x-www-form-urlencoded';
const TARGETS = ['service', 'ceiling', 'oidc-provider'] as const;
type Target = (typeof TARGETS)[number];
const KINDS = ['introspection', 'client_credentials'] as const;
type Kind = (typeof KINDS)[number];

const post = (path: string, authorization: string, body: Record<string, string>): AutocannonRequest => ({
  method: 'POST',
  path,
  headers: { 'content-type': FORM, authorization },
  body: new URLSearchParams(body).toString(),
});
const scenario = (name: string, request: AutocannonRequest, expectBody: Scenario['expectBody']): Scenario => ({
  name,
  load: () => ({ requests: [request] }),
  probe: () => request,
  expectStatus: 200,
  expectBody,
});
const active = (body: Record<string, unknown>) => body.active === true;
const issued = (body: Record<string, unknown>) => typeof body.access_token === 'string';

interface Row {
  runs: LoadRun[];
  measurement?: Measurement;
}

async function main(argv: BenchArgs): Promise<boolean> {
  const started = new Date();
  const connections = argv.count('connections', 16);
  const rounds = argv.count('rounds', 2);
  const duration = argv.count('duration', 20);
  const warmup = argv.count('warmup', 3);
  const { prepared, seed } = await prepareSeededService({ log, cleanups, workPrefix: 'oauth-peers-', useTsx: argv.useTsx });
  const { config } = prepared;
  const basic = basicAuth(seed.clientId, seed.clientSecret);
  const service = await prepared.start();
  const [ceilingPort, oidcPort] = [await freePort(), await freePort()];
  const start = async (name: string, file: string, env: Record<string, string>, port: number) => {
    const server = await startServer(name, ['--import', 'tsx', file], { ...env, PORT: String(port) }, port);
    cleanups.unshift(() => server.stop());
    log(`${name} pid ${server.pid} on ${server.baseUrl}`);
    return server;
  };
  const ceiling = await start('ceiling', 'bench/ceiling-server.ts', ceilingEnvironment(config, seed), ceilingPort);
  const oidc = await start(
    'oidc-provider',
    'bench/peer-oidc-provider.ts',
    { CLIENT_ID: seed.clientId, CLIENT_SECRET: seed.clientSecret },
    oidcPort,
  );
  const oidcIssue = post('/token', basic, { grant_type: 'client_credentials' });
  const oidcToken = (await probe(oidc.baseUrl, oidcIssue)).body?.access_token;
  if (typeof oidcToken !== 'string') throw new Error('node-oidc-provider issued no access token');

  const servers: Record<Target, ServerProcess> = { service, ceiling, 'oidc-provider': oidc };
  const scenarios: Record<Kind, Record<Target, Scenario>> = {
    introspection: {
      service: scenario('introspect basic active', post('/oauth/introspect', basic, { token: seed.activeToken }), active),
      ceiling: scenario('introspect basic active', post('/oauth/introspect', basic, { token: seed.activeToken }), active),
      'oidc-provider': scenario('introspect basic active', post('/token/introspection', basic, { token: oidcToken }), active),
    },
    client_credentials: {
      service: scenario('token client_credentials', post('/oauth/token', basic, { grant_type: 'client_credentials' }), issued),
      ceiling: scenario('token client_credentials', post('/oauth/token', basic, { grant_type: 'client_credentials' }), issued),
      'oidc-provider': scenario('token client_credentials', oidcIssue, issued),
    },
  };
  const problems: string[] = [];
  for (const kind of KINDS)
    for (const target of TARGETS) {
      const s = scenarios[kind][target];
      const { status, body } = await probe(servers[target].baseUrl, s.probe());
      if (status !== 200 || !body || !s.expectBody!(body)) problems.push(`${kind} on ${target}: HTTP ${status} ${JSON.stringify(body)}`);
    }
  for (const problem of problems) log(`PREFLIGHT: ${problem}`);

  const loads: string[] = [];
  const rows = Object.fromEntries(KINDS.map((k) => [k, Object.fromEntries(TARGETS.map((t) => [t, { runs: [] } as Row]))])) as Record<
    Kind,
    Record<Target, Row>
  >;
  log(`initial warm-up: ${warmup * 2} s of each scenario on each server`);
  for (const kind of KINDS)
    for (const target of TARGETS) await runLoad(servers[target].baseUrl, scenarios[kind][target], { connections, seconds: warmup * 2 });
  for (const kind of KINDS) {
    for (const target of TARGETS) await runLoad(servers[target].baseUrl, scenarios[kind][target], { connections, seconds: warmup });
    for (let round = 0; round < rounds; round += 1) {
      for (const target of rotate(TARGETS, round)) {
        const before = loadLine();
        const run = await runLoad(servers[target].baseUrl, scenarios[kind][target], { connections, seconds: duration / rounds });
        rows[kind][target].runs.push(run);
        const after = loadLine();
        loads.push(`| ${kind} | ${round + 1} | ${target} | ${rate(run.latencies.length / run.seconds)} | ${before} | ${after} |`);
        log(`${kind} round ${round + 1} on ${target}: ${rate(run.latencies.length / run.seconds)} req/s; load ${before} -> ${after}`);
      }
    }
    for (const target of TARGETS) rows[kind][target].measurement = combine(rows[kind][target].runs);
  }

  const m = (kind: Kind, target: Target) => rows[kind][target].measurement!;
  const ratio = (kind: Kind, target: Target, to: Target) => (m(kind, target).requestsPerSecond / m(kind, to).requestsPerSecond).toFixed(2);
  const cells = (kind: Kind, target: Target) => {
    const x = m(kind, target);
    if (!isValid(x)) return [`INVALID (${problemText(x.problems)})`, '', '', '', ''];
    return [rate(x.requestsPerSecond), ms(x.p50), ms(x.p99), ratio(kind, target, 'ceiling'), ratio(kind, target, 'oidc-provider')];
  };
  const label: Record<Target, string> = {
    service: `this service (${argv.useTsx ? 'tsx src/main.ts' : 'node dist/main.js'}, default config)`,
    ceiling: 'database ceiling (bench/ceiling-server.ts)',
    'oidc-provider': 'node-oidc-provider 9 (in-memory adapter)',
  };
  const header = ['target'];
  for (const kind of KINDS) header.push(`${kind} req/s`, 'p50 ms', 'p99 ms', '÷ ceiling', '÷ oidc-provider');
  const table = markdownTable(
    header,
    TARGETS.map((t) => [label[t], ...KINDS.flatMap((k) => cells(k, t))]),
  );
  const report = [
    methodHeading('bench:peers', started),
    ...prepared.machine,
    `- autocannon: ${connections} keep-alive connections, pipelining 1; per scenario ${warmup} s warm-up of each server, then ${duration} s per server in ${rounds} rounds of ${duration / rounds} s, one server at a time, the first server rotating each round`,
    `- service pool ${config.databasePoolSize} (default), log level info as shipped (a line per request, to a file as a container's log driver takes it); ceiling pool ${config.databasePoolSize}; node-oidc-provider keeps its tokens in memory`,
    '',
    table,
    ...(problems.length ? ['', 'Preflight problems:', ...problems.map((p) => `- ${p}`)] : []),
    '',
    'Load averages (1, 5, 15 min) before and after each measured run:',
    '',
    '| scenario | round | server | req/s | load before | load after |',
    '|---|---|---|---|---|---|',
    ...loads,
    '',
    `Total time: ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeReport(report, argv.markdownOut);
  return problems.length === 0 && KINDS.every((k) => TARGETS.every((t) => isValid(m(k, t))));
}

await runBench({
  usage: USAGE,
  parse: (args) => parseBenchArgs(args, ['duration', 'rounds', 'warmup', 'connections']),
  main,
  log,
  cleanups,
  invalidMessage: 'some responses were not the expected ones; the numbers above are not valid measurements',
});
