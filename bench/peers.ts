// npm run bench:peers [-- options]: issue 21's side-by-side run. The service (default configuration, as
// shipped, plus the device grant) against the database ceiling (bench/ceiling-server.ts) and node-oidc-provider
// with its in-memory adapter (bench/peer-oidc-provider.ts), on the same load generator, one server at a time in
// alternating rounds. Issue 34 added client_credentials with private_key_jwt and device-code polling (the ceiling
// has neither; bench/peer-clients.ts). Issue 36 added par_code, a FAPI 2.0 client's PAR, authorization and code
// exchange (bench/peer-par-code.ts), against node-oidc-provider's FAPI 2.0 profile. Progress goes to stderr, the
// report (Markdown) to stdout.
import { randomBytes } from 'node:crypto';
import type { AutocannonRequest } from 'autocannon';
import { freePort } from '../scripts/lib/ports.js';
import { proofKey } from './dpop-proofs.js';
import { AssertionPool, DEVICE_GRANT, deviceCodes, pollRequest, seedPeerClients } from './peer-clients.js';
import { discoverEndpoints, PAR_CODE_STEPS, ParCodeFlow, type ParCodeRecording } from './peer-par-code.js';
import { authorizeOnce, CookieJar, signInOnService } from './peer-sessions.js';
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
  takeOption,
  writeReport,
  type Cleanups,
} from './service-harness.js';

const USAGE = `Usage: npm run bench:peers -- [options]

The service, the database ceiling (bare Fastify + pg) and node-oidc-provider side by side (issues 21, 34 and 36).

  --duration S      seconds measured per scenario and server, split over the rounds (default 20)
  --rounds N        alternating rounds; each round rotates which server goes first (default 2)
  --warmup S        seconds of warm-up of each server before each scenario (default 3)
  --connections N   keep-alive connections (default 16)
  --device-codes N  pending device codes the service's polls cycle through (default 12000; see the report)
  --only a,b        only these scenarios: introspection, client_credentials, private_key_jwt, device_poll, par_code
${COMMON_USAGE}`;

const log = benchLog('peers');
const cleanups: Cleanups = [];
const FORM = 'application/x-www-form-urlencoded';
const TARGETS = ['service', 'ceiling', 'oidc-provider'] as const;
type Target = (typeof TARGETS)[number];
const KINDS = ['introspection', 'client_credentials', 'private_key_jwt', 'device_poll', 'par_code'] as const;
type Kind = (typeof KINDS)[number];
/** The ceiling server knows a client secret and tokens only. */
const TARGETS_OF: Record<Kind, readonly Target[]> = {
  introspection: TARGETS,
  client_credentials: TARGETS,
  private_key_jwt: ['service', 'oidc-provider'],
  device_poll: ['service', 'oidc-provider'],
  par_code: ['service', 'oidc-provider'],
};
const KIND_LABEL: Record<Kind, string> = {
  introspection: 'introspection (client_secret_basic, active token)',
  client_credentials: 'client_credentials (client_secret_basic)',
  private_key_jwt: 'client_credentials (private_key_jwt, ES256)',
  device_poll: 'device-code poll (pending)',
  par_code: 'FAPI 2.0: PAR, authorization, code exchange',
};
/** Discovery documents, which name the endpoints of the par_code flow. */
const DISCOVERY: Partial<Record<Target, string>> = {
  service: '/.well-known/oauth-authorization-server',
  'oidc-provider': '/.well-known/openid-configuration',
};
/** Signatures made before a run, as a multiple of what the fastest rate seen so far would take (ES256: ~0.15 ms each). */
const PRESIGN_MARGIN = 2.5;
/** The service's poll interval here (the minimum; default 5): a code polled less often is answered authorization_pending. */
const DEVICE_INTERVAL = 1;
/** node-oidc-provider's in-memory adapter keeps 1,000 to 2,000 entries, two per device code: more codes would be evicted. */
const OIDC_PROVIDER_DEVICE_CODES = 400;

const post = (path: string, authorization: string, body: Record<string, string>): AutocannonRequest => ({
  method: 'POST',
  path,
  headers: { 'content-type': FORM, authorization },
  body: new URLSearchParams(body).toString(),
});
const scenario = (name: string, request: () => AutocannonRequest, expectBody: Scenario['expectBody'], expectStatus = 200): Scenario => ({
  name,
  load: () => ({ requests: [request()] }),
  probe: request,
  expectStatus,
  expectBody,
});
const active = (body: Record<string, unknown>) => body.active === true;
const issued = (body: Record<string, unknown>) => typeof body.access_token === 'string';
const pending = (body: Record<string, unknown>) => body.error === 'authorization_pending';

interface Row {
  runs: LoadRun[];
  measurement?: Measurement;
  /** par_code: each run's step and iteration timings. */
  recordings: ParCodeRecording[];
}

/** The scenarios --only names (all when absent). */
function chosenKinds(only: string | undefined): readonly Kind[] {
  if (only === undefined) return KINDS;
  const names = only
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(KINDS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) throw new Error(`--only: one or more of ${KINDS.join(', ')}, not ${only}`);
  return KINDS.filter((kind) => names.includes(kind));
}

async function main(argv: BenchArgs & { only: string | undefined }): Promise<boolean> {
  const kinds = chosenKinds(argv.only);
  const started = new Date();
  const connections = argv.count('connections', 16);
  const rounds = argv.count('rounds', 2);
  const duration = argv.count('duration', 20);
  const warmup = argv.count('warmup', 3);
  const serviceDeviceCodes = argv.count('device-codes', 12_000);
  const { prepared, seed } = await prepareSeededService({
    log,
    cleanups,
    workPrefix: 'oauth-peers-',
    useTsx: argv.useTsx,
    settings: {
      grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', DEVICE_GRANT],
      deviceAuthorization: { interval: DEVICE_INTERVAL },
    },
  });
  const { config } = prepared;
  const clients = await seedPeerClients(prepared.database, config);
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
    {
      CLIENT_ID: seed.clientId,
      CLIENT_SECRET: seed.clientSecret,
      JWT_CLIENT_ID: clients.jwtClientId,
      JWT_CLIENT_JWKS: JSON.stringify(clients.publicJwks),
      DEVICE_CLIENT_ID: clients.deviceClientId,
      FAPI_CLIENT_ID: clients.fapiClientId,
      COOKIE_KEY: randomBytes(32).toString('hex'),
    },
    oidcPort,
  );
  const oidcIssue = () => post('/token', basic, { grant_type: 'client_credentials' });
  const oidcToken = (await probe(oidc.baseUrl, oidcIssue())).body?.access_token;
  if (typeof oidcToken !== 'string') throw new Error('node-oidc-provider issued no access token');

  const servers: Record<Target, ServerProcess> = { service, ceiling, 'oidc-provider': oidc };
  // Each server checks the assertion's aud against its own issuer, as its discovery document names it (the service
  // derives its base URL from the listening address when none is configured).
  const issuer = async (server: ServerProcess, path: string) => {
    const { body } = await probe(server.baseUrl, { method: 'GET', path });
    if (typeof body?.issuer !== 'string') throw new Error(`${server.baseUrl}${path} names no issuer`);
    return body.issuer;
  };
  const assertions: Partial<Record<Target, AssertionPool>> = {
    service: new AssertionPool(clients, await issuer(service, DISCOVERY.service!), clients.jwtClientId),
    'oidc-provider': new AssertionPool(clients, await issuer(oidc, DISCOVERY['oidc-provider']!), clients.jwtClientId),
  };
  // One DPoP key for the FAPI client on both servers, as one client would hold it.
  const dpopKey = await proofKey();
  const flows: Partial<Record<Target, ParCodeFlow>> = {};
  for (const target of TARGETS_OF.par_code)
    flows[target] = new ParCodeFlow(await discoverEndpoints(servers[target].baseUrl, DISCOVERY[target]!), clients, dpopKey);
  /** par_code: the cookie header of each connection's signed-in user agent. */
  const sessions: Partial<Record<Target, string[]>> = {};
  const tokenPath: Record<Target, string> = { service: '/oauth/token', ceiling: '/oauth/token', 'oidc-provider': '/token' };
  const codes: Partial<Record<Target, string[]>> = {};
  const answers: Record<Target, Record<string, number>> = { service: {}, ceiling: {}, 'oidc-provider': {} };
  const poll = (target: Target) => () => pollRequest(tokenPath[target], clients.deviceClientId, codes[target] ?? [], answers[target]);
  const introspect = (target: Target, token: string) => () =>
    post(target === 'oidc-provider' ? '/token/introspection' : '/oauth/introspect', basic, { token });
  // par_code: every step checks its own answer (bench/peer-par-code.ts); the statuses here are all of them.
  const parCodeScenario = (target: Target): Scenario => ({
    name: 'par_code',
    load: () => flows[target]!.load(sessions[target]!),
    probe: () => ({ method: 'GET', path: '/healthz' }),
    expectStatus: 200,
    alsoExpected: [201, 302, 303],
  });
  const scenarios: Record<Kind, Partial<Record<Target, Scenario>>> = {
    introspection: {
      service: scenario('introspect basic active', introspect('service', seed.activeToken), active),
      ceiling: scenario('introspect basic active', introspect('ceiling', seed.activeToken), active),
      'oidc-provider': scenario('introspect basic active', introspect('oidc-provider', oidcToken), active),
    },
    client_credentials: {
      service: scenario('token client_credentials', () => post('/oauth/token', basic, { grant_type: 'client_credentials' }), issued),
      ceiling: scenario('token client_credentials', () => post('/oauth/token', basic, { grant_type: 'client_credentials' }), issued),
      'oidc-provider': scenario('token client_credentials', oidcIssue, issued),
    },
    private_key_jwt: {
      service: scenario('token private_key_jwt', () => assertions.service!.request('/oauth/token'), issued),
      'oidc-provider': scenario('token private_key_jwt', () => assertions['oidc-provider']!.request('/token'), issued),
    },
    device_poll: {
      service: scenario('device poll', poll('service'), pending, 400),
      'oidc-provider': scenario('device poll', poll('oidc-provider'), pending, 400),
    },
    par_code: { service: parCodeScenario('service'), 'oidc-provider': parCodeScenario('oidc-provider') },
  };
  const deviceAuthorizationPath: Partial<Record<Target, string>> = {
    service: '/oauth/device_authorization',
    'oidc-provider': '/device/auth',
  };
  const codeCount: Partial<Record<Target, number>> = { service: serviceDeviceCodes, 'oidc-provider': OIDC_PROVIDER_DEVICE_CODES };
  const prepareKind = async (kind: Kind) => {
    if (kind === 'par_code') {
      for (const target of TARGETS_OF[kind]) {
        log(`signing ${connections} users in on ${target}, each authorizing the FAPI client once`);
        const signIn = () =>
          target === 'service' ? signInOnService(service.baseUrl, seed.username, seed.password) : Promise.resolve(new CookieJar());
        sessions[target] = [];
        for (let i = 0; i < connections; i += 1)
          sessions[target].push(await authorizeOnce(servers[target].baseUrl, flows[target]!, await signIn()));
      }
    }
    if (kind !== 'device_poll') return;
    for (const target of TARGETS_OF[kind]) {
      log(`creating ${codeCount[target]} device codes on ${target}`);
      codes[target] = await deviceCodes(
        servers[target].baseUrl,
        deviceAuthorizationPath[target]!,
        clients.deviceClientId,
        codeCount[target]!,
      );
    }
  };

  // Assertions are signed before each run, enough for the fastest rate seen so far (a first guess before any) with
  // PRESIGN_MARGIN to spare: on a loaded machine a round can run well faster than the warm-up did.
  const fastest: Partial<Record<Target, number>> = {};
  const fastestIterations: Partial<Record<Target, number>> = {};
  /** The timings of the last par_code run. */
  let lastRecording: ParCodeRecording | null = null;
  const measureParCode = async (target: Target, seconds: number): Promise<LoadRun> => {
    const flow = flows[target]!;
    await flow.fill(Math.ceil(Math.max(fastestIterations[target] ?? 0, 300) * seconds * PRESIGN_MARGIN));
    const run = await runLoad(servers[target].baseUrl, scenarios.par_code[target]!, { connections, seconds });
    const recording = flow.takeRecording();
    fastestIterations[target] = Math.max(fastestIterations[target] ?? 0, recording.iterations.count / run.seconds);
    Object.assign(run.problems, recording.problems);
    if (flow.missing > 0) run.problems['signatures ran out'] = flow.missing;
    flow.clear();
    lastRecording = recording;
    return run;
  };
  const measure = async (kind: Kind, target: Target, seconds: number): Promise<LoadRun> => {
    if (kind === 'par_code') return measureParCode(target, seconds);
    const pool = kind === 'private_key_jwt' ? assertions[target]! : null;
    await pool?.fill(Math.ceil(Math.max(fastest[target] ?? 4000, 1000) * seconds * PRESIGN_MARGIN));
    const run = await runLoad(servers[target].baseUrl, scenarios[kind][target]!, { connections, seconds });
    if (pool) {
      fastest[target] = Math.max(fastest[target] ?? 0, run.latencies.length / run.seconds);
      if (pool.missing > 0) run.problems['client assertions ran out'] = pool.missing;
      pool.missing = 0;
      pool.clear();
    }
    return run;
  };

  const problems: string[] = [];
  const preflight = async (kind: Kind) => {
    for (const target of TARGETS_OF[kind]) {
      if (kind === 'par_code') {
        const problem = await flows[target]!.probe(servers[target].baseUrl, sessions[target]![0]!);
        if (problem !== null) problems.push(`${kind} on ${target}: ${problem}`);
        continue;
      }
      const s = scenarios[kind][target]!;
      if (kind === 'private_key_jwt') await assertions[target]!.fill(2);
      const { status, body } = await probe(servers[target].baseUrl, s.probe());
      if (status !== s.expectStatus || !body || !s.expectBody!(body))
        problems.push(`${kind} on ${target}: HTTP ${status} ${JSON.stringify(body)}`);
      assertions[target]?.clear();
    }
  };

  const loads: string[] = [];
  const rows = Object.fromEntries(
    KINDS.map((k) => [k, Object.fromEntries(TARGETS.map((t) => [t, { runs: [], recordings: [] } as Row]))]),
  ) as Record<Kind, Record<Target, Row>>;
  for (const kind of kinds) {
    await prepareKind(kind);
    await preflight(kind);
    log(`${kind}: warm-up, ${warmup * 3} s on each server`);
    for (const target of TARGETS_OF[kind]) await measure(kind, target, warmup * 3);
    for (const target of TARGETS_OF[kind]) answers[target] = {};
    for (let round = 0; round < rounds; round += 1) {
      for (const target of rotate(TARGETS_OF[kind], round)) {
        const before = loadLine();
        const run = await measure(kind, target, duration / rounds);
        rows[kind][target].runs.push(run);
        const after = loadLine();
        // par_code's rate is of iterations (three requests each).
        if (kind === 'par_code') rows[kind][target].recordings.push(lastRecording!);
        const counted = kind === 'par_code' ? lastRecording!.iterations.count : run.latencies.length;
        const unit = kind === 'par_code' ? 'iterations/s' : 'req/s';
        loads.push(`| ${kind} | ${round + 1} | ${target} | ${rate(counted / run.seconds)} ${unit} | ${before} | ${after} |`);
        log(`${kind} round ${round + 1} on ${target}: ${rate(counted / run.seconds)} ${unit}; load ${before} -> ${after}`);
      }
    }
    for (const target of TARGETS_OF[kind]) {
      const row = rows[kind][target];
      // par_code: a measurement of iterations, each from its PAR sent to its token received.
      const runs =
        kind === 'par_code' ? row.runs.map((run, i) => ({ ...run, latencies: row.recordings[i]!.iterations.values() })) : row.runs;
      row.measurement = combine(runs);
    }
  }
  for (const problem of problems) log(`PREFLIGHT: ${problem}`);

  const m = (kind: Kind, target: Target) => rows[kind][target].measurement!;
  const ratio = (kind: Kind, target: Target, to: Target) =>
    TARGETS_OF[kind].includes(to) ? (m(kind, target).requestsPerSecond / m(kind, to).requestsPerSecond).toFixed(2) : 'n/a';
  const label: Record<Target, string> = {
    service: `this service (${argv.useTsx ? 'tsx src/main.ts' : 'node dist/main.js'})`,
    ceiling: 'database ceiling (bench/ceiling-server.ts)',
    'oidc-provider': 'node-oidc-provider 9 (in-memory adapter)',
  };
  const table = markdownTable(
    ['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', '÷ ceiling', '÷ oidc-provider'],
    kinds
      .filter((kind) => kind !== 'par_code')
      .flatMap((kind) =>
        TARGETS_OF[kind].map((target) => {
          const x = m(kind, target);
          const cells = isValid(x)
            ? [rate(x.requestsPerSecond), ms(x.p50), ms(x.p99), ratio(kind, target, 'ceiling'), ratio(kind, target, 'oidc-provider')]
            : [`INVALID (${problemText(x.problems)})`, '', '', '', ''];
          return [KIND_LABEL[kind], label[target], ...cells];
        }),
      ),
  );
  const parCodeTable = markdownTable(
    ['target', 'iterations/s', 'p50 ms', 'p99 ms', ...PAR_CODE_STEPS.map((step) => `${step} p99 ms`), '÷ oidc-provider'],
    TARGETS_OF.par_code.map((target) => {
      const row = rows.par_code[target];
      const x = row.measurement;
      if (!x) return [label[target], 'not run', '', '', '', '', '', ''];
      if (!isValid(x)) return [label[target], `INVALID (${problemText(x.problems)})`, '', '', '', '', '', ''];
      const stepP99 = (step: (typeof PAR_CODE_STEPS)[number]) =>
        ms(combine(row.runs.map((run, i) => ({ ...run, latencies: row.recordings[i]!.steps[step].values() }))).p99);
      return [
        label[target],
        rate(x.requestsPerSecond),
        ms(x.p50),
        ms(x.p99),
        ...PAR_CODE_STEPS.map(stepP99),
        ratio('par_code', target, 'oidc-provider'),
      ];
    }),
  );
  const answerText = (target: Target) =>
    Object.entries(answers[target])
      .map(([error, n]) => `${n} ${error}`)
      .join(', ');
  const unexpectedAnswers = TARGETS_OF.device_poll.some((t) =>
    Object.keys(answers[t]).some((error) => error !== 'authorization_pending' && error !== 'slow_down'),
  );
  /** What the report says of how each scenario was run (the first two need nothing beyond the lines above). */
  const methodOf: Partial<Record<Kind, string>> = {
    private_key_jwt:
      '- private_key_jwt: the same ES256 key registered inline (jwks) on both servers; every request a fresh assertion (aud the issuer, a new jti, signed before the run: both servers store the jti and refuse it again)',
    device_poll: `- device-code poll: nobody enters the user codes, so every correct answer is HTTP 400 authorization_pending. The service's polls cycle through ${serviceDeviceCodes} codes, each polled no sooner than its interval, as a well-behaved device (a poll records its time in the database, on every instance); node-oidc-provider's through ${OIDC_PROVIDER_DEVICE_CODES} (its in-memory adapter keeps at most 2,000 entries; it has no slow_down). Answers while measured: service ${answerText('service')}; node-oidc-provider ${answerText('oidc-provider')}`,
    par_code: `- FAPI 2.0 (par_code): one iteration is POST ${flows.service!.endpoints.par.pathname} (private_key_jwt, a DPoP proof, PKCE S256, scope read) -> GET the authorization endpoint with client_id and request_uri, with the session cookie of a user who signed in and consented before the run (answer: the redirect with the code) -> POST the token endpoint (authorization_code, private_key_jwt, a DPoP proof of the same key) -> a DPoP-bound access token; each of the ${connections} connections is the user agent of its own signed-in session. Assertions and proofs signed before the run (no DPoP nonce: neither server asks for one by default). The service's client: private_key_jwt, jwks inline, require_pushed_authorization_requests, dpop_bound_access_tokens; node-oidc-provider's: the same metadata, features.fapi profile 2.0 for that client, pushedAuthorizationRequests required, dPoP enabled, signed cookies`,
  };
  const report = [
    methodHeading('bench:peers', started),
    ...prepared.machine,
    `- autocannon: ${connections} keep-alive connections, pipelining 1; per scenario ${warmup * 3} s warm-up of each server, then ${duration} s per server in ${rounds} rounds of ${duration / rounds} s, one server at a time, the first server rotating each round`,
    `- service: default config plus the device grant in grantFlows (deviceAuthorization.interval ${DEVICE_INTERVAL} s), pool ${config.databasePoolSize} (default), log level info as shipped (a line per request, to a file as a container's log driver takes it); ceiling pool ${config.databasePoolSize}; node-oidc-provider keeps its tokens in memory`,
    ...kinds.flatMap((kind) => methodOf[kind] ?? []),
    '',
    ...(kinds.some((kind) => kind !== 'par_code') ? [table, ''] : []),
    ...(kinds.includes('par_code')
      ? [
          'FAPI 2.0 PAR, authorization and code exchange (iterations of three requests; p50/p99 of an iteration, and p99 of each step):',
          '',
          parCodeTable,
          '',
        ]
      : []),
    ...(problems.length ? ['Preflight problems:', ...problems.map((p) => `- ${p}`), ''] : []),
    'Load averages (1, 5, 15 min) before and after each measured run:',
    '',
    '| scenario | round | server | rate | load before | load after |',
    '|---|---|---|---|---|---|',
    ...loads,
    '',
    `Total time: ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeReport(report, argv.markdownOut);
  return problems.length === 0 && !unexpectedAnswers && kinds.every((k) => TARGETS_OF[k].every((t) => isValid(m(k, t))));
}

await runBench({
  usage: USAGE,
  parse: (args) => {
    const only = takeOption(args, '--only');
    const parsed = parseBenchArgs(args, ['duration', 'rounds', 'warmup', 'connections', 'device-codes']);
    return parsed === 'help' ? 'help' : { ...parsed, only };
  },
  main,
  log,
  cleanups,
  invalidMessage: 'some responses were not the expected ones; the numbers above are not valid measurements',
});
