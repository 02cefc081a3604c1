// npm run bench:profile-ab -- --a DIR --b DIR: the CPU cost per request of two builds of the service on issue 21's
// two hot paths, in alternation on one database, so a change is judged on a shared machine by what it costs
// rather than by req/s. DIR is a tree with a compiled dist/main.js (e.g. `git archive <commit>` unpacked, with a
// node_modules link and `tsc -p tsconfig.build.json` run in it). Both services run at once on their own ports,
// with the same config and key; each round sends a bounded load to one and takes its CPU time from /proc, the
// order alternating (A B, B A, ...) so that a change in the machine's load hits both alike.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../scripts/lib/ports.js';
import { serverCpuPerRequest } from './bounded-load.js';
import { runLoad } from './load.js';
import { startServer, type ServerProcess } from './processes.js';
import { hotPathScenarios } from './scenarios.js';
import {
  benchLog,
  COMMON_USAGE,
  methodHeading,
  parseBenchArgs,
  prepareSeededService,
  runBench,
  takeOption,
  writeReport,
  type Cleanups,
} from './service-harness.js';

const USAGE = `Usage: npm run bench:profile-ab -- --a DIR --b DIR [options]

CPU per request (/proc) of two builds of the service (DIR/dist/main.js), alternated on the two hot paths.

  --a DIR, --b DIR  the two trees (compiled)
  --rounds N        rounds per build and hot path (default 6)
  --requests N      requests per round (default 10000)
  --warmup S        seconds of warm-up of each build per hot path (default 3)
  --connections N   keep-alive connections (default 16)
${COMMON_USAGE}`;

const log = benchLog('profile-ab');
const cleanups: Cleanups = [];

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const us = (value: number) => value.toFixed(1);

await runBench({
  usage: USAGE,
  parse: (argv) => {
    const trees = [takeOption(argv, '--a'), takeOption(argv, '--b')];
    const parsed = parseBenchArgs(argv, ['rounds', 'requests', 'warmup', 'connections']);
    if (parsed === 'help') return parsed;
    const [a, b] = trees.map((tree) => resolve(tree ?? ''));
    for (const tree of [a!, b!]) {
      if (!existsSync(join(tree, 'dist/main.js'))) throw new Error(`${tree}/dist/main.js does not exist: --a and --b name compiled trees`);
    }
    return { ...parsed, trees: [a!, b!] as const };
  },
  log,
  cleanups,
  invalidMessage: 'some responses were not 200; the figures are not of the hot path',
  async main(argv) {
    const started = new Date();
    const rounds = argv.count('rounds', 6);
    const requests = argv.count('requests', 10_000);
    const warmup = argv.count('warmup', 3);
    const connections = argv.count('connections', 16);
    // useTsx: the services come from the two trees; the harness must not compile this checkout's dist/.
    const { prepared, seed } = await prepareSeededService({ log, cleanups, workPrefix: 'oauth-profile-ab-', useTsx: true });
    const scenarios = hotPathScenarios(seed);
    const keyEncryptionKey = randomBytes(32).toString('hex');
    const servers: ServerProcess[] = [];
    for (const [i, tree] of argv.trees.entries()) {
      const port = i === 0 ? prepared.port : await freePort();
      const configPath = `${prepared.configPath}.${i}.json`;
      writeFileSync(configPath, JSON.stringify({ ...JSON.parse(readFileSync(prepared.configPath, 'utf8')), port }));
      const env = { KEY_ENCRYPTION_KEY: keyEncryptionKey }; // the shipped log level, info
      const server = await startServer(i === 0 ? 'A' : 'B', [join(tree, 'dist/main.js'), 'serve', '--config', configPath], env, port);
      cleanups.unshift(() => server.stop());
      log(`${server.name} = ${tree}: pid ${server.pid} on ${server.baseUrl}`);
      servers.push(server);
    }
    const lines: string[] = [];
    let valid = true;
    for (const scenario of scenarios) {
      for (const server of servers) await runLoad(server.baseUrl, scenario, { connections, seconds: warmup });
      const cpu: number[][] = [[], []];
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const i of order) {
          const server = servers[i]!;
          const { run, cpuUs, rps } = await serverCpuPerRequest(server, scenario, { amount: requests, connections });
          if (Object.keys(run.problems).length) valid = false;
          cpu[i]!.push(cpuUs);
          log(
            `${scenario.name} round ${round + 1} ${server.name}: ${us(cpuUs)} µs CPU/request, ${rps} req/s, load ${loadavg()[0]!.toFixed(2)}`,
          );
        }
      }
      const differences = cpu[1]!.map((b, i) => b - cpu[0]![i]!);
      lines.push(
        `| ${scenario.name} | ${cpu[0]!.map(us).join(', ')} | ${us(mean(cpu[0]!))} / ${us(median(cpu[0]!))} | ${cpu[1]!.map(us).join(', ')} | ${us(mean(cpu[1]!))} / ${us(median(cpu[1]!))} | ${us(mean(differences))} / ${us(median(differences))} |`,
      );
    }
    writeReport(
      [
        methodHeading('bench:profile-ab', started),
        ...prepared.machine,
        `- A: ${argv.trees[0]}; B: ${argv.trees[1]}; ${rounds} rounds of ${requests} requests per build and hot path on ${connections} connections, alternated; CPU (user + system) of the service from /proc`,
        '',
        '| hot path | A µs/request per round | A mean / median | B µs/request per round | B mean / median | B − A mean / median (same round) |',
        '|---|---|---|---|---|---|',
        ...lines,
      ].join('\n'),
      argv.markdownOut,
    );
    return valid;
  },
});
