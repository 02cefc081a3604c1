// npm run bench:profile [-- options]: issue 21's profile of the two hot paths. For each of introspection with
// Basic (active token) and client_credentials issue, a fresh service process (default configuration, as
// shipped) runs under `node --cpu-prof`, gets a warm-up, then a bounded load (a fixed number of requests) on
// 127.0.0.1; its CPU time over the bounded load (from /proc) divided by the requests is the CPU cost of one
// request, and bench/profile-summary.ts splits it by category from the samples of that window only.
// The .cpuprofile files are kept (--out-dir) for a flame graph (Chrome DevTools, speedscope).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { boundedLoad, sampleStats, serverCpuPerRequest } from './bounded-load.js';
import { runLoad } from './load.js';
import { ensureCompiled, startServer } from './processes.js';
import { comparisonTable, summarize, summaryTables, type CpuProfile, type ProfiledServer } from './profile-summary.js';
import { hotPathScenarios, type Scenario } from './scenarios.js';
import { countSyscalls } from './syscall-count.js';
import {
  benchLog,
  ceilingEnvironment,
  COMMON_USAGE,
  loadLine,
  methodHeading,
  parseBenchArgs,
  prepareSeededService,
  runBench,
  takeOption,
  writeReport,
  type Cleanups,
} from './service-harness.js';

const USAGE = `Usage: npm run bench:profile -- [options]

CPU profile (node --cpu-prof) of the service on its two hot paths, and where one request's CPU time goes.

  --requests N      requests of the bounded load, per hot path (default 20000)
  --warmup S        seconds of warm-up before it (default 5)
  --connections N   keep-alive connections (default 16)
  --strace          also count each server's system calls per request (strace -f -c, on 2000 more requests)
  --out-dir D       where the .cpuprofile files go (default: oauth-profiles in the temporary folder)
${COMMON_USAGE}`;

const log = benchLog('profile');
const cleanups: Cleanups = [];
const STRACE_REQUESTS = 2000;

/** Socket system calls per request over a separate bounded load under strace (its overhead stays out of the profile). */
async function syscallsPerRequest(pid: number, scenario: Scenario, url: string, connections: number): Promise<string> {
  let requests = 0;
  const calls = await countSyscalls(pid, async () => {
    const run = await boundedLoad({ url, amount: STRACE_REQUESTS, connections, pids: [], request: () => scenario.probe() });
    requests = run.latencies.length;
  });
  if (!calls) return 'not counted (strace missing or not allowed to attach)';
  return ['writev', 'write', 'sendto', 'read', 'recvfrom', 'epoll_pwait', 'futex']
    .filter((name) => calls[name] !== undefined)
    .map((name) => `${name} ${(calls[name]! / requests).toFixed(2)}`)
    .join(', ');
}

await runBench({
  usage: USAGE,
  parse: (argv) => {
    const dir = takeOption(argv, '--out-dir');
    const parsed = parseBenchArgs(argv, ['requests', 'warmup', 'connections'], ['strace']);
    return parsed === 'help' ? parsed : { ...parsed, outDir: resolve(dir ?? join(tmpdir(), 'oauth-profiles')) };
  },
  log,
  cleanups,
  invalidMessage: 'some responses were not the expected ones; the profile is not of the hot path',
  async main(argv) {
    const started = new Date();
    const requests = argv.count('requests', 20_000);
    const warmup = argv.count('warmup', 5);
    const connections = argv.count('connections', 16);
    mkdirSync(argv.outDir, { recursive: true });
    const entry = argv.useTsx ? ['--import', 'tsx', 'src/main.ts'] : [await ensureCompiled(log)];
    const { prepared, seed } = await prepareSeededService({ log, cleanups, workPrefix: 'oauth-profile-', useTsx: argv.useTsx });
    const scenarios = hotPathScenarios(seed);
    const keyEncryptionKey = randomBytes(32).toString('hex');
    const sections: string[] = [];
    let valid = true;
    const ceilingEnv = ceilingEnvironment(prepared.config, seed);
    const targets: Array<{ name: string; args: string[]; env: Record<string, string> }> = [
      {
        name: 'service',
        args: [...entry, 'serve', '--config', prepared.configPath],
        // The shipped log level (info: one line per request), as issue 21 asks.
        env: { KEY_ENCRYPTION_KEY: keyEncryptionKey },
      },
      { name: 'ceiling', args: ['--import', 'tsx', 'bench/ceiling-server.ts'], env: { ...ceilingEnv, PORT: String(prepared.port) } },
    ];
    for (const scenario of scenarios) {
      const profiled: Array<ProfiledServer & { lines: string[] }> = [];
      for (const target of targets) {
        const name = `${target.name}-${scenario.name.replaceAll(' ', '-')}`;
        const server = await startServer(
          target.name,
          ['--cpu-prof', `--cpu-prof-dir=${argv.outDir}`, `--cpu-prof-name=${name}.cpuprofile`, ...target.args],
          target.env,
          prepared.port,
        );
        cleanups.unshift(() => server.stop());
        log(`${scenario.name}: ${target.name} pid ${server.pid} under --cpu-prof; ${warmup} s warm-up`);
        await runLoad(server.baseUrl, scenario, { connections, seconds: warmup });
        const before = loadLine();
        const from = Number(process.hrtime.bigint() / 1000n);
        const { run, cpuUs, rps } = await serverCpuPerRequest(server, scenario, { amount: requests, connections });
        const to = Number(process.hrtime.bigint() / 1000n);
        const after = loadLine();
        const syscalls = argv.flag('strace') ? await syscallsPerRequest(server.pid, scenario, server.baseUrl, connections) : null;
        await server.stop();
        const problems = Object.entries(run.problems);
        if (problems.length) valid = false;
        const stats = sampleStats(run.latencies);
        const file = join(argv.outDir, `${name}.cpuprofile`);
        const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
        if (from < profile.startTime || to > profile.endTime) throw new Error(`${file}: the load's window is outside the profile's clock`);
        log(`${scenario.name} on ${target.name}: ${rps} req/s, ${cpuUs.toFixed(0)} µs CPU per request; ${file}`);
        profiled.push({
          name: target.name,
          summary: summarize(profile, { from, to }),
          cpuUs,
          requests: run.latencies.length,
          lines: [
            `- ${target.name}: ${run.latencies.length} requests in ${run.seconds.toFixed(1)} s (${rps} req/s under the profiler), p50 ${stats.p50.toFixed(2)} ms, p99 ${stats.p99.toFixed(2)} ms${problems.length ? `; PROBLEMS ${JSON.stringify(run.problems)}` : ''}; CPU (user + system, /proc) ${run.cpuMs[0]!.toFixed(0)} ms, **${cpuUs.toFixed(0)} µs per request**; load average before ${before}, after ${after}; ${file}`,
            ...(syscalls ? [`  - system calls per request (strace -f -c over ${STRACE_REQUESTS} more requests): ${syscalls}`] : []),
          ],
        });
      }
      const [service, ceiling] = profiled as [(typeof profiled)[number], (typeof profiled)[number]];
      sections.push(
        `### ${scenario.name}`,
        ...profiled.flatMap((p) => p.lines),
        '',
        comparisonTable(service, ceiling),
        '',
        `Service, categories and top functions (self time):`,
        '',
        summaryTables(service.summary, service.requests),
        '',
      );
    }
    writeReport(
      [
        methodHeading('bench:profile', started),
        ...prepared.machine,
        `- service: ${argv.useTsx ? 'tsx src/main.ts' : 'node dist/main.js'} serve, default configuration (log level info as shipped, output to a file), under node --cpu-prof (sampling every 1 ms by default); ${warmup} s warm-up, then ${requests} requests on ${connections} connections`,
        '',
        ...sections,
      ].join('\n'),
      argv.markdownOut,
    );
    return valid;
  },
});
