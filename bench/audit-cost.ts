import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/loader.js';
import { auditedChange, CLI_ACTOR, recordAuditEvent } from '../src/oauth/audit/audit-trail.js';
import { clientEvent, verdictEvent } from '../src/oauth/audit/audit-subjects.js';
import { createApplication, setApplicationDisabled } from '../src/oauth/clients/applications.js';
import type { OAuthDeps } from '../src/oauth/deps.js';
import { createAttemptLimits } from '../src/oauth/limits/attempt-limits.js';
import { createTokenSigner } from '../src/oauth/keys/token-signer.js';
import { argon2Hasher } from '../src/storage/argon2-hasher.js';
import { createDatabase } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { createStores } from '../src/storage/stores.js';

// Issue 32 item 7: what one audit event costs. On the database of DATABASE_URL (else an in-memory PGlite):
// the INSERT alone, an admin change (disable/enable an application) written directly as before, and the same change
// with its event in one transaction (auditedChange). Each measured `--runs` times after a warm-up, in alternation.
// `npm run bench:audit [-- --runs N]`; results in bench/RESULTS.md.

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 500;
const databaseUrl = process.env.DATABASE_URL ?? null;
const database = await createDatabase({ databaseUrl, dataDir: 'memory://', poolSize: 4 });
await migrate(database);
const config = loadConfig({ input: {} });
const stores = createStores(database, { applicationCacheSeconds: 0 });
const now = () => new Date();
const deps: OAuthDeps = {
  stores,
  config,
  now,
  hooks: {},
  passwords: argon2Hasher,
  limits: createAttemptLimits(config.rateLimit),
  signer: createTokenSigner({ stores, config, now }),
};
const { application } = await createApplication(deps, {
  name: 'Bench',
  redirectUri: 'https://b.example.com/cb',
  scopes: '',
  confidential: true,
});

let flip = false;
const toggle = (on: OAuthDeps) => setApplicationDisabled(on, application.id, (flip = !flip));
const ways: Record<string, () => Promise<unknown>> = {
  'event INSERT alone': () => recordAuditEvent(stores, now(), { ...CLI_ACTOR, ...clientEvent('client.updated', application)! }),
  'admin change, no event (before)': () => toggle(deps),
  'admin change + event, one transaction': () => auditedChange(deps, CLI_ACTOR, toggle, (r) => verdictEvent('client.disabled', r)),
};

const samples = Object.fromEntries(Object.keys(ways).map((name) => [name, [] as number[]]));
for (let run = -50; run < runs; run++) {
  for (const [name, way] of Object.entries(ways)) {
    const start = performance.now();
    await way();
    if (run >= 0) samples[name]!.push(performance.now() - start);
  }
}
const stat = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, p50: at(0.5), p99: at(0.99) };
};
console.log(`audit event cost on ${databaseUrl ? 'PostgreSQL' : 'PGlite (in memory)'}, ${runs} runs each, alternated\n`);
console.log('| way | mean | p50 | p99 |\n|---|---|---|---|');
for (const [name, values] of Object.entries(samples)) {
  const { mean, p50, p99 } = stat(values);
  console.log(`| ${name} | ${mean.toFixed(3)} ms | ${p50.toFixed(3)} ms | ${p99.toFixed(3)} ms |`);
}
await database.close();
