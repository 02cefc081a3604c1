// npm run bench:signing [-- options]: what signing an ID token costs the code exchange (issue 16). The token
// endpoint exchanges single-use codes, so this is not a scenario of bench/run.ts (which runs for a time, on
// reusable requests): every case gets its own pre-made codes and each run is bounded by a count of exchanges.
// Cases, on one service process and one private PostgreSQL: the exchange without `openid`, and with `openid`
// for a client registered for RS256, ES256 and EdDSA; alternated in rounds. Then the signer alone in this
// process (createTokenSigner, the same keys from the same database), to separate the crypto from HTTP and SQL.
// Progress goes to stderr, the report (Markdown) to stdout.
import { performance } from 'node:perf_hooks';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { domainDeps } from '../src/cli/context.js';
import type { Config } from '../src/config/types.js';
import { createApplication } from '../src/oauth/clients/applications.js';
import { idTokenClaims } from '../src/oauth/openid/id-token.js';
import { generateSecret, storedForm } from '../src/oauth/secrets.js';
import { ensureSigningKeys } from '../src/oauth/keys/signing-key-service.js';
import type { SigningAlgorithm } from '../src/oauth/keys/signing-keys.js';
import { argon2Hasher } from '../src/storage/argon2-hasher.js';
import type { Database } from '../src/storage/database.js';
import { boundedLoad, meanLatency, sampleStats, spread, summarizeRuns, type RunsSummary } from './bounded-load.js';
import { problemText } from './load.js';
import type { ServerProcess } from './processes.js';
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

const USAGE = `Usage: npm run bench:signing -- [options]

The token endpoint's code exchange without openid and with an ID token signed RS256, ES256 and EdDSA, on one
service and one private PostgreSQL; then the token signer alone, in process (see bench/RESULTS.md).

  --exchanges N     measured code exchanges per case (default 12000), split over the rounds
  --warmup N        exchanges per case before measuring, discarded (default 500)
  --rounds N        alternating rounds; each runs every case once, the order rotating (default 12)
  --connections N   concurrent keep-alive connections (default 8)
  --pool N          database connections of the service (default 4)
  --signatures N    in-process signatures per algorithm (default 5000)
${COMMON_USAGE}`;

interface Options {
  exchanges: number;
  warmup: number;
  rounds: number;
  connections: number;
  poolSize: number;
  signatures: number;
  useTsx: boolean;
  markdownOut: string | null;
}

function parseOptions(argv: string[]): Options | 'help' {
  const args = parseBenchArgs(argv, ['exchanges', 'warmup', 'rounds', 'connections', 'pool', 'signatures']);
  if (args === 'help') return 'help';
  const { count } = args;
  const rounds = count('rounds', 12);
  return {
    exchanges: Math.ceil(count('exchanges', 12000) / rounds) * rounds,
    warmup: count('warmup', 500, 0),
    rounds,
    connections: count('connections', 8),
    poolSize: count('pool', 4),
    signatures: Math.ceil(count('signatures', 5000) / SIGNING_ROUNDS) * SIGNING_ROUNDS,
    useTsx: args.useTsx,
    markdownOut: args.markdownOut,
  };
}

const log = benchLog('bench:signing');
const cleanups: Cleanups = [];
const ALGORITHMS: SigningAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];
/** The in-process signatures are alternated in this many rounds. */
const SIGNING_ROUNDS = 5;
const REDIRECT_URI = 'https://client.example/callback';
const FORM = 'application/x-www-form-urlencoded';

/** One case of the exchange: its own client (registered for `alg`) and its own single-use codes. */
interface ExchangeCase {
  name: string;
  /** null: the codes lack `openid`, so no ID token. */
  alg: SigningAlgorithm | null;
  clientId: string;
  clientSecret: string;
  codes: string[];
}

interface Run {
  latencies: number[];
  seconds: number;
  /** CPU time of the service process over the run (user + system), milliseconds. */
  serviceCpuMs: number;
  problems: Record<string, number>;
}

interface Summary extends RunsSummary {
  cpuPerRequestMs: number;
}

// ---------------------------------------------------------------- seeding

async function seed(database: Database, config: Readonly<Config>, codesPerCase: number): Promise<ExchangeCase[]> {
  const deps = domainDeps(database, config);
  const user = await deps.stores.userAdmin.create({ username: 'bench-user', passwordHash: await argon2Hasher.hash('bench-password') });
  // Keys of every algorithm exist before the service starts: no exchange waits for a key to be made.
  await ensureSigningKeys(deps, ALGORITHMS);
  const cases: ExchangeCase[] = [];
  for (const alg of [null, ...ALGORITHMS]) {
    const { application, plainSecret } = await createApplication(deps, {
      name: `bench ${alg ?? 'oauth'} client`,
      redirectUri: REDIRECT_URI,
      scopes: 'read openid',
      confidential: true,
      idTokenSignedResponseAlg: alg ?? '',
    });
    const codes = Array.from({ length: codesPerCase }, () => generateSecret());
    const now = new Date();
    // What the authorization endpoint stores: a plain OAuth code, or an OpenID Connect one (nonce, sign-in).
    const create = (code: string) =>
      deps.stores.accessGrants.create({
        applicationId: application.id,
        resourceOwnerId: user.id,
        token: storedForm(code, config.hashTokens),
        expiresIn: config.authorizationCodeExpiresIn,
        redirectUri: REDIRECT_URI,
        scopes: alg ? ['openid', 'read'] : ['read'],
        createdAt: now,
        codeChallenge: null,
        codeChallengeMethod: null,
        ...(alg && { nonce: generateSecret().slice(0, 22), authTime: now, sessionId: generateSecret() }),
      });
    for (let i = 0; i < codes.length; i += 8) await Promise.all(codes.slice(i, i + 8).map(create));
    cases.push({ name: alg ? `openid, ${alg}` : 'without openid', alg, clientId: application.uid, clientSecret: plainSecret!, codes });
  }
  return cases;
}

// ---------------------------------------------------------------- HTTP exchanges

const exchangeBody = (code: string) =>
  new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }).toString();

/** `amount` exchanges of one case on `connections` connections, each request with the next unused code. */
async function exchanges(service: ServerProcess, entry: ExchangeCase, amount: number, connections: number): Promise<Run> {
  const take = () => entry.codes.pop() ?? 'codes-exhausted';
  const run = await boundedLoad({
    url: service.baseUrl,
    amount,
    connections,
    pids: [service.pid],
    request: (problem) => ({
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': FORM, authorization: basicAuth(entry.clientId, entry.clientSecret) },
      body: exchangeBody('placeholder'),
      setupRequest: (request) => ({ ...request, body: exchangeBody(take()) }),
      onResponse: (status, body) => {
        if (status !== 200) return;
        // Every answer must be what the case measures: an ID token exactly when openid was granted.
        if (body.includes('"id_token"') === (entry.alg !== null)) return;
        problem(entry.alg ? 'no id_token' : 'unexpected id_token');
      },
    }),
  });
  return { latencies: run.latencies, seconds: run.seconds, serviceCpuMs: run.cpuMs[0]!, problems: run.problems };
}

/** One exchange outside the load: the answer is checked in full (ID token signed by `alg`, verified by the JWKS). */
async function probe(service: ServerProcess, entry: ExchangeCase): Promise<string | null> {
  const response = await fetch(`${service.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': FORM, authorization: basicAuth(entry.clientId, entry.clientSecret) },
    body: exchangeBody(entry.codes.pop()!),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) return `${entry.name}: HTTP ${response.status} ${JSON.stringify(body)}`;
  if (typeof body.access_token !== 'string') return `${entry.name}: no access_token`;
  if (entry.alg === null) return 'id_token' in body ? `${entry.name}: an id_token without openid` : null;
  if (typeof body.id_token !== 'string') return `${entry.name}: no id_token`;
  const alg = decodeProtectedHeader(body.id_token).alg;
  if (alg !== entry.alg) return `${entry.name}: id_token signed ${alg}`;
  const discovery = (await (await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).json()) as {
    jwks_uri: string;
    issuer: string;
  };
  // The discovery document names the public base URL; the JWKS is fetched from where the service listens.
  const jwks = createRemoteJWKSet(new URL(new URL(discovery.jwks_uri).pathname, service.baseUrl));
  await jwtVerify(body.id_token, jwks, { issuer: discovery.issuer, audience: entry.clientId, algorithms: [entry.alg] });
  return null;
}

function summarize(runs: Run[]): Summary {
  const summary = summarizeRuns(runs);
  return { ...summary, cpuPerRequestMs: runs.reduce((sum, run) => sum + run.serviceCpuMs, 0) / summary.count };
}

// ---------------------------------------------------------------- the signer alone

interface SigningSummary {
  alg: SigningAlgorithm;
  count: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  cpuUs: number;
  /** Signatures per second with `connections` signatures in flight at once. */
  concurrentPerSecond: number;
}

/**
 * createTokenSigner on the service's keys (same database, same KEY_ENCRYPTION_KEY), signing ID-token claims as
 * the exchange builds them: one at a time (latency, CPU per signature), then `concurrency` at once (throughput).
 */
async function signing(database: Database, config: Readonly<Config>, cases: ExchangeCase[], options: Options): Promise<SigningSummary[]> {
  const { signer } = domainDeps(database, config);
  const claims = (alg: SigningAlgorithm) => {
    const now = new Date();
    return idTokenClaims({
      issuer: 'http://127.0.0.1:3000',
      subject: generateSecret(),
      clientId: cases.find((c) => c.alg === alg)!.clientId,
      now,
      lifetimeSeconds: config.openid.idTokenExpiresIn,
      alg,
      authTime: now,
      nonce: generateSecret().slice(0, 22),
      accessToken: generateSecret(),
      sessionId: generateSecret(),
      amr: ['pwd'],
    });
  };
  const payloads = new Map(ALGORITHMS.map((alg) => [alg, Array.from({ length: 64 }, () => claims(alg))]));
  const samples = new Map(ALGORITHMS.map((alg) => [alg, { latencies: [] as number[], cpuUs: 0, concurrentSeconds: 0 }]));
  // Warm-up: the key list, each private key's import, jose's and the JIT's first calls.
  for (const alg of ALGORITHMS) for (let i = 0; i < 500; i += 1) await signer.sign(payloads.get(alg)![i % 64]!, { alg });
  const perRound = options.signatures / SIGNING_ROUNDS;
  for (let round = 0; round < SIGNING_ROUNDS; round += 1) {
    for (const alg of rotate(ALGORITHMS, round)) {
      const sample = samples.get(alg)!;
      const list = payloads.get(alg)!;
      const cpu = process.cpuUsage();
      for (let i = 0; i < perRound; i += 1) {
        const started = performance.now();
        await signer.sign(list[i % 64]!, { alg });
        sample.latencies.push((performance.now() - started) * 1000);
      }
      const used = process.cpuUsage(cpu);
      sample.cpuUs += used.user + used.system;
      // The same number again with `connections` in flight (WebCrypto signs off the main thread).
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: options.connections }, async () => {
          while (next < perRound) {
            next += 1;
            await signer.sign(list[next % 64]!, { alg });
          }
        }),
      );
      sample.concurrentSeconds += (performance.now() - started) / 1000;
    }
  }
  return ALGORITHMS.map((alg) => {
    const { latencies, cpuUs, concurrentSeconds } = samples.get(alg)!;
    const stats = sampleStats(latencies);
    return {
      alg,
      count: stats.count,
      meanUs: stats.mean,
      p50Us: stats.p50,
      p99Us: stats.p99,
      cpuUs: cpuUs / stats.count,
      concurrentPerSecond: stats.count / concurrentSeconds,
    };
  });
}

// ---------------------------------------------------------------- main

async function main(options: Options): Promise<boolean> {
  const startedAt = new Date();
  const { machine, config, database, start } = await prepareService({
    log,
    cleanups,
    workPrefix: 'oauth-bench-signing-',
    useTsx: options.useTsx,
    poolSize: 4,
    settings: () => ({
      databasePoolSize: options.poolSize,
      // Codes live long enough for the whole run (the default is 10 minutes).
      authorizationCodeExpiresIn: 3600,
      openid: { enabled: true },
      keys: { algorithms: ALGORITHMS },
    }),
  });

  // Per case: warm-up, measured exchanges, one probe, and slack for requests autocannon sends past `amount`.
  const codesPerCase = options.warmup + options.exchanges + 1 + options.connections * (options.rounds + 1) * 2;
  log(`seeding: a user, 4 confidential clients (none, RS256, ES256, EdDSA), ${codesPerCase.toLocaleString('en-US')} codes each`);
  const seedStarted = performance.now();
  const cases = await seed(database, config, codesPerCase);
  log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const service = await start();

  const problems = (await Promise.all(cases.map((entry) => probe(service, entry)))).filter((p): p is string => p !== null);
  for (const problem of problems) log(`PROBE: ${problem}`);
  if (problems.length) throw new Error('the probes did not get the answers the cases measure');

  log(`warm-up: ${options.warmup} exchanges per case`);
  for (const entry of cases) if (options.warmup > 0) await exchanges(service, entry, options.warmup, options.connections);

  const perRound = options.exchanges / options.rounds;
  const runs = new Map(cases.map((entry) => [entry, [] as Run[]]));
  for (let round = 0; round < options.rounds; round += 1) {
    for (const entry of rotate(cases, round)) {
      const run = await exchanges(service, entry, perRound, options.connections);
      runs.get(entry)!.push(run);
      log(
        `round ${round + 1}/${options.rounds} ${entry.name}: ${rate(run.latencies.length / run.seconds)} req/s, service CPU ${(run.serviceCpuMs / run.latencies.length).toFixed(2)} ms/req${Object.keys(run.problems).length ? `, PROBLEMS ${problemText(run.problems)}` : ''}`,
      );
    }
  }
  const summaries = cases.map((entry) => ({ entry, summary: summarize(runs.get(entry)!) }));

  log(`the signer alone: ${options.signatures} signatures per algorithm, one at a time, then ${options.connections} at once`);
  const signed = await signing(database, config, cases, options);
  for (const s of signed) log(`${s.alg}: mean ${s.meanUs.toFixed(0)} µs, CPU ${s.cpuUs.toFixed(0)} µs per signature`);

  const reference = summaries[0]!.summary;
  const cpuDelta = (alg: SigningAlgorithm) =>
    summaries.find(({ entry }) => entry.alg === alg)!.summary.cpuPerRequestMs - reference.cpuPerRequestMs;
  const delta = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
  // Round by round (the same round's run without openid as reference): how much the Δ moves with the machine.
  const roundDeltas = (entry: ExchangeCase, of: (run: Run) => number) => {
    const without = runs.get(cases[0]!)!;
    return spread(
      runs.get(entry)!.map((run, round) => of(run) - of(without[round]!)),
      delta,
    );
  };
  const meanOf = meanLatency;
  const cpuOf = (run: Run) => run.serviceCpuMs / run.latencies.length;
  const valid = summaries.every(({ summary }) => Object.keys(summary.problems).length === 0);
  const report = [
    methodHeading('bench:signing', startedAt),
    ...machine,
    `- service: ${options.useTsx ? 'tsx src/main.ts serve' : 'node dist/main.js serve'} (LOG_LEVEL=warn, pool ${config.databasePoolSize}, openid.enabled, keys.algorithms ${ALGORITHMS.join(', ')}); one confidential client per case, registered with its id_token_signed_response_alg; codes made through the domain store (accessGrants.create), those with openid carrying a nonce, auth_time and sid`,
    `- autocannon: ${options.connections} keep-alive connections, pipelining 1, each request with the next unused code; per case ${options.warmup} exchanges of warm-up, then ${options.exchanges.toLocaleString('en-US')} measured in ${options.rounds} rounds of ${perRound.toLocaleString('en-US')} (every case once per round, the order rotating); every answer 200 with an id_token exactly when openid was granted (one probe per case verifies its ID token against the JWKS)`,
    `- service CPU: user + system time of the service process (/proc/<pid>/stat, ${TICKS_PER_SECOND} ticks/s) over each run ÷ its exchanges; PostgreSQL and the load generator are not counted`,
    '',
    '#### Code exchange at the token endpoint (Δ = against the exchange without openid)',
    markdownTable(
      [
        'case',
        'exchanges',
        'req/s',
        'mean ms',
        'p50 ms',
        'p99 ms',
        'service CPU ms/req',
        'Δ mean ms',
        'Δ p50 ms',
        'Δ CPU ms/req',
        'per round: Δ mean ms, median (min … max)',
        'per round: Δ CPU ms/req, median (min … max)',
        'errors',
      ],
      summaries.map(({ entry, summary: s }) => [
        entry.name,
        s.count.toLocaleString('en-US'),
        rate(s.requestsPerSecond),
        ms(s.mean),
        ms(s.p50),
        ms(s.p99),
        s.cpuPerRequestMs.toFixed(2),
        entry.alg ? delta(s.mean - reference.mean) : '-',
        entry.alg ? delta(s.p50 - reference.p50) : '-',
        entry.alg ? delta(s.cpuPerRequestMs - reference.cpuPerRequestMs) : '-',
        entry.alg ? roundDeltas(entry, meanOf) : '-',
        entry.alg ? roundDeltas(entry, cpuOf) : '-',
        Object.keys(s.problems).length ? problemText(s.problems) : 'none',
      ]),
    ),
    '',
    `#### The signer alone (createTokenSigner in this process, ID-token claims; ${options.signatures.toLocaleString('en-US')} per algorithm in ${SIGNING_ROUNDS} alternating rounds)`,
    markdownTable(
      [
        'alg',
        'mean µs',
        'p50 µs',
        'p99 µs',
        'CPU µs/signature',
        'signatures/s, 1 at a time',
        `signatures/s, ${options.connections} at once`,
        'exchange Δ CPU ms/req',
        'of it not signing ms/req',
      ],
      signed.map((s) => [
        s.alg,
        s.meanUs.toFixed(0),
        s.p50Us.toFixed(0),
        s.p99Us.toFixed(0),
        s.cpuUs.toFixed(0),
        rate(1e6 / s.meanUs),
        rate(s.concurrentPerSecond),
        delta(cpuDelta(s.alg)),
        delta(cpuDelta(s.alg) - s.cpuUs / 1000),
      ]),
    ),
    '',
    '"of it not signing" = the exchange\'s Δ CPU less the signer\'s CPU per signature: the user lookup (one more query), the claims (at_hash), a longer response.',
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
