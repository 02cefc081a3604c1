// The full fuzz run (issue 8): the generator of test/security/fuzz.test.ts for longer, against a fresh service on
// 127.0.0.1 only (embedded PGlite, or a new database on DATABASE_URL's server). Bounded by a request count and
// a time limit, whichever comes first. Exits 1 when any answer was a 5xx, leaked internals, redirected off the
// registered URIs or never came, or when the service is not ready afterwards.
//
//   npm run fuzz -- [--requests N] [--minutes M] [--seed S] [--concurrency C] [--profile default|full]
//   (defaults: 50000 requests, 10 minutes, a random seed, 8 connections, the default profile; `full` turns on OpenID
//   Connect and the implicit, device and token exchange grants, and sends their requests: FUZZ_CONFIG_FULL)
import { parseArgs } from 'node:util';
import { fuzzFixture, fuzzServer, runFuzz } from '../test/security/fuzz-run.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '50000' },
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    concurrency: { type: 'string', default: '8' },
    profile: { type: 'string', default: 'default' },
  },
});
const count = Number(values.requests);
const minutes = Number(values.minutes);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
const profile = values.profile;
const numbers = [count, minutes, seed, concurrency];
if (
  !numbers.every((n) => Number.isFinite(n) && n >= 0) ||
  count === 0 ||
  concurrency === 0 ||
  (profile !== 'default' && profile !== 'full')
) {
  process.stderr.write('usage: npm run fuzz -- [--requests N] [--minutes M] [--seed S] [--concurrency C] [--profile default|full]\n');
  process.exit(2);
}

const server = await fuzzServer(profile);
const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
const started = Date.now();
let exitCode = 0;
try {
  const fixture = await fuzzFixture(server);
  process.stdout.write(`fuzzing ${url} (${profile} profile) with seed ${seed}: up to ${count} requests or ${minutes} min\n`);
  const report = await runFuzz(server, fixture, {
    count,
    seconds: minutes * 60,
    seed,
    concurrency,
    onProgress: (sent) =>
      process.stdout.write(
        `  ${sent} requests, ${Math.round((Date.now() - started) / 1000)} s, RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB\n`,
      ),
  });
  const ready = await server.app.inject({ method: 'GET', url: '/readyz' });
  process.stdout.write(`\n${report.sent} requests over ${report.routes.length} routes in ${Math.round((Date.now() - started) / 1000)} s\n`);
  process.stdout.write(`statuses: ${JSON.stringify(report.statuses)}\n/readyz afterwards: ${ready.statusCode}\n`);
  for (const failure of report.failures.slice(0, 20))
    process.stdout.write(`\nFAIL ${failure.problem}\n${JSON.stringify(failure.request)}\n${failure.body}\n`);
  process.stdout.write(`\n${report.failures.length} failures (replay with --seed ${seed} --profile ${profile})\n`);
  if (report.failures.length > 0 || ready.statusCode !== 200) exitCode = 1;
} finally {
  await server.close();
}
process.exit(exitCode);
