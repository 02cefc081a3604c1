// npm run bench [-- options]: the service against a bare Fastify + pg baseline, one endpoint at a time, on
// one private PostgreSQL (SPEC 9, issue 7). Progress goes to stderr, the report (Markdown) to stdout.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BATCH_SIZE } from '../src/cli/tokens.js';
import { loadConfig } from '../src/config/loader.js';
import { cleanupTable, cleanupUnderLoad, insertStaleTokens, type CleanupAtScaleResult } from './cleanup-at-scale.js';
import { compareServers, problemText, runLoad, type Measurement } from './load.js';
import { parseBenchOptions, USAGE, type BenchOptions } from './options.js';
import { openBenchDatabase } from './postgres.js';
import { preflight } from './preflight.js';
import { freePort } from '../scripts/lib/ports.js';
import { ensureCompiled, ROOT, startServer, type ServerProcess } from './processes.js';
import { endpointTable, isValid, machineLines, rate, scaleTable, type EndpointResult, type ScaleResult } from './report.js';
import { endpointScenarios, randomIntrospection, soakScenario, type Scenario } from './scenarios.js';
import { insertBulkTokens, seedThroughDomain } from './seed.js';
import { soak, soakTable, type SoakResult } from './soak.js';
import { benchLog, runBench, writeReport, type Cleanups } from './service-harness.js';

const log = benchLog('bench');
const cleanups: Cleanups = [];

async function main(options: BenchOptions): Promise<boolean> {
  const started = Date.now();
  const serviceEntry = options.useTsx ? ['--import', 'tsx', 'src/main.ts'] : [await ensureCompiled(log)];
  const database = await openBenchDatabase(log);
  cleanups.push(() => database.dispose());
  const work = mkdtempSync(join(tmpdir(), 'oauth-bench-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));

  const [servicePort, baselinePort] = [await freePort(), await freePort()];
  const extra = options.serviceConfig ? (JSON.parse(readFileSync(options.serviceConfig, 'utf8')) as Record<string, unknown>) : {};
  const configPath = join(work, 'config.json');
  const serviceConfig = {
    databasePoolSize: options.poolSize,
    ...extra,
    databaseUrl: database.url,
    host: '127.0.0.1',
    port: servicePort,
    sessionSecret: randomBytes(32).toString('hex'),
  };
  writeFileSync(configPath, JSON.stringify(serviceConfig, null, 2));
  const config = loadConfig({ path: configPath });

  log('seeding through the domain: one confidential client, a user, tokens and refresh tokens');
  // Refresh chains: one seed per connection for every run (warm-up and rounds) of both servers, plus probes.
  const seed = await seedThroughDomain(database.url, config, options.connections * 2 * (options.rounds + 1) + 8);
  const bulk = { applicationId: seed.applicationId, hashTokens: config.hashTokens, scopes: config.defaultScopes.join(' ') };
  let stored = options.scale ? await insertBulkTokens(database.url, { ...bulk, from: 1, to: options.smallTokens }, () => undefined) : 0;
  let bulkTokens = options.scale ? options.smallTokens : 0;

  const service = await startServer('service', [...serviceEntry, 'serve', '--config', configPath], { LOG_LEVEL: 'warn' }, servicePort);
  cleanups.unshift(() => service.stop());
  const bootRss = service.rss();
  const baseline = await startServer(
    'baseline',
    ['--import', 'tsx', 'bench/baseline-server.ts'],
    { DATABASE_URL: database.url, PORT: String(baselinePort), POOL_SIZE: String(config.databasePoolSize) },
    baselinePort,
  );
  cleanups.unshift(() => baseline.stop());
  log(
    `service (${options.useTsx ? 'tsx src/main.ts' : 'node dist/main.js'}) pid ${service.pid} on ${service.baseUrl}; baseline pid ${baseline.pid} on ${baseline.baseUrl}`,
  );

  const all = endpointScenarios(seed);
  const unknown = options.only?.filter((name) => !all.some((s) => s.name === name)) ?? [];
  if (unknown.length)
    throw new Error(`--only: no endpoint named ${unknown.join(', ')}; the names are: ${all.map((s) => s.name).join(', ')}`);
  const scenarios = all.filter((s) => !options.only || options.only.includes(s.name));
  const problems = await preflight(scenarios, service, baseline);
  for (const problem of problems) log(`PREFLIGHT: ${problem}`);
  const settings = {
    connections: options.connections,
    seconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
    rounds: options.rounds,
  };
  const measure = async (servers: ServerProcess[], scenario: Scenario) => {
    const measurements = await compareServers(servers, scenario, settings);
    measurements.forEach((m, i) =>
      log(
        `${scenario.name} on ${servers[i]!.name}: ${rate(m.requestsPerSecond)} req/s, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms${isValid(m) ? '' : `, ERRORS ${problemText(m.problems)}`}`,
      ),
    );
    return measurements as [Measurement, ...Measurement[]];
  };

  // Fresh processes and a fresh database run slowly for several seconds (measured: a few hundred req/s
  // rising to thousands over ~10 s), longer than one endpoint's warm-up; warm everything up once first.
  const initialWarmup = Math.max(2, options.warmupSeconds * 3);
  log(`initial warm-up: ${initialWarmup} s of mixed load on each server`);
  for (const server of [service, baseline])
    await runLoad(server.baseUrl, soakScenario(seed, Math.max(1, bulkTokens)), {
      connections: options.connections,
      seconds: initialWarmup,
    });

  const scale: ScaleResult[] = [];
  const scaleRun = async (label: string) => {
    const request = randomIntrospection(seed, bulkTokens);
    const scenario: Scenario = {
      name: `introspect random of ${label}`,
      load: () => ({ requests: [request] }),
      probe: () => request,
      expectStatus: 200,
    };
    scale.push({ label, storedTokens: stored, measurement: (await measure([service], scenario))[0] });
  };
  if (options.scale) await scaleRun(`${options.smallTokens.toLocaleString('en-US')} bulk tokens`);

  const results: EndpointResult[] = [];
  for (const scenario of scenarios) {
    // One server at a time, alternating; both run on the same database and machine.
    const [serviceResult, baselineResult] = await measure([service, baseline], scenario);
    results.push({ name: scenario.name, service: serviceResult, baseline: baselineResult! });
  }

  if (options.scale) {
    log(`inserting bulk tokens up to ${options.largeTokens.toLocaleString('en-US')}`);
    stored = await insertBulkTokens(database.url, { ...bulk, from: options.smallTokens + 1, to: options.largeTokens }, (done) =>
      log(`  ${done.toLocaleString('en-US')} inserted`),
    );
    bulkTokens = options.largeTokens;
    await scaleRun(`${options.largeTokens.toLocaleString('en-US')} bulk tokens`);
  }

  let cleaned: CleanupAtScaleResult | null = null;
  if (options.cleanupRows > 0) {
    log(`inserting ${options.cleanupRows.toLocaleString('en-US')} expired and revoked tokens for the cleanup run`);
    await insertStaleTokens(
      database.url,
      { applicationId: seed.applicationId, count: options.cleanupRows, hashTokens: config.hashTokens },
      (done) => log(`  ${done.toLocaleString('en-US')} inserted`),
    );
    log('tokens cleanup (the CLI) under an introspection load of random live tokens');
    const request = randomIntrospection(seed, Math.max(1, bulkTokens));
    const introspection: Scenario = {
      name: 'introspect during cleanup',
      load: () => ({ requests: [request] }),
      probe: () => request,
      expectStatus: 200,
    };
    const cliArgs = options.useTsx ? ['--import', 'tsx', 'src/main.ts'] : [join(ROOT, 'dist/main.js')];
    cleaned = await cleanupUnderLoad(service, introspection, {
      url: database.url,
      cliArgs,
      configPath,
      connections: options.connections,
      batchSize: DEFAULT_BATCH_SIZE,
      staleRows: options.cleanupRows,
    });
    log(
      `cleanup: ${cleaned.deleted} rows in ${cleaned.seconds.toFixed(1)} s, longest batch ${cleaned.longestBatchMs.toFixed(0)} ms; introspection p99 ${cleaned.during.p99.toFixed(2)} ms`,
    );
  }

  let soaked: SoakResult | null = null;
  if (options.soak) {
    log(`soak: ${options.soakSeconds} s of mixed load on the service, sampling its RSS`);
    soaked = await soak(service, soakScenario(seed, Math.max(1, bulkTokens)), {
      connections: options.connections,
      seconds: options.soakSeconds,
    });
  }

  const report = [
    '## Method',
    ...machineLines(await database.describe()),
    `- autocannon: ${options.connections} keep-alive connections, pipelining 1; per endpoint, ${options.warmupSeconds} s warm-up of each server, then ${options.durationSeconds} s measured per server in ${options.rounds} alternating round(s), one server at a time; latency percentiles from every response's own timing`,
    `- service: ${options.useTsx ? 'tsx src/main.ts serve' : 'node dist/main.js serve'} (LOG_LEVEL=warn, pool ${config.databasePoolSize}${Object.keys(extra).length ? `, extra config ${JSON.stringify(extra)}` : ''}); baseline: bench/baseline-server.ts (pool ${config.databasePoolSize})`,
    '',
    '## Endpoints (service vs baseline; ratio = service req/s ÷ baseline req/s)',
    endpointTable(results),
    ...(problems.length
      ? ['', 'Preflight problems (answers differ from what the scenario expects):', ...problems.map((p) => `- ${p}`)]
      : []),
    ...(scale.length ? ['', '## Introspection latency by stored tokens', scaleTable(scale)] : []),
    ...(cleaned ? ['', '## tokens cleanup at scale (while introspection serves)', cleanupTable(cleaned, scale.at(-1)?.measurement)] : []),
    ...(soaked
      ? ['', `## Memory over a ${(soaked.seconds / 60).toFixed(1)}-minute run (mixed hot endpoints)`, soakTable(soaked, bootRss)]
      : []),
    '',
    `Total bench time: ${((Date.now() - started) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeReport(report, options.markdownOut);
  const measurements = [
    ...results.flatMap((r) => [r.service, r.baseline]),
    ...scale.map((s) => s.measurement),
    ...(cleaned ? [cleaned.during] : []),
    ...(soaked ? [soaked.measurement] : []),
  ];
  return problems.length === 0 && measurements.every(isValid);
}

await runBench({
  usage: USAGE,
  parse: parseBenchOptions,
  main,
  log,
  cleanups,
  // A run with unexpected answers is not a fast run: the exit code says so (bars are only reported).
  invalidMessage: 'some responses were not the expected ones; the numbers above are not valid measurements',
});
