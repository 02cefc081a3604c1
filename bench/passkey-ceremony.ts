import { performance } from 'node:perf_hooks';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildServer } from '../src/app.js';
import { loadConfig } from '../src/config/loader.js';
import { argon2Hasher } from '../src/storage/argon2-hasher.js';
import { createDatabase } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { createStores } from '../src/storage/stores.js';
import { SoftwareAuthenticator } from '../scripts/lib/software-authenticator.js';

// Issue 35 item 1: the server's time per passkey ceremony. In process (app.inject, no network), on the database of
// DATABASE_URL (else an in-memory PGlite): a registration's options and its verification (attestation "none", the
// credential stored, its audit event), and a sign-in's options and its verification (signature, counter, a new login
// session, its audit event). `npm run bench:passkeys [-- --runs N]`; results in bench/RESULTS.md.

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 300;
const databaseUrl = process.env.DATABASE_URL ?? null;
const database = await createDatabase({ databaseUrl, dataDir: 'memory://', poolSize: 4 });
await migrate(database);
const ORIGIN = 'http://localhost:3000';
const HERE = { origin: ORIGIN, rpId: 'localhost' };
const config = loadConfig({ input: { baseUrl: ORIGIN, log: { level: 'silent' }, sessionSecret: 'b'.repeat(40) } });
const stores = createStores(database, {});
const app = await buildServer({ config, database, now: () => new Date(), stores });
await stores.userAdmin.create({ username: 'bench', passwordHash: await argon2Hasher.hash('bench password') });

/** inject() carrying the session cookie back, as a browser does. */
function browser(server: FastifyInstance) {
  let cookie = '';
  const request = async (options: InjectOptions) => {
    const response = await server.inject({ ...options, headers: { ...(cookie && { cookie }), ...options.headers } });
    const set = response.cookies.find((one) => one.name === 'oauth_session');
    if (set) cookie = `oauth_session=${encodeURIComponent(set.value)}`;
    return response;
  };
  const csrf = async (url: string) => /name="_csrf" value="([^"]+)"/.exec((await request({ method: 'GET', url })).body)![1]!;
  const json = (url: string, token: string, payload: object) =>
    request({ method: 'POST', url, headers: { 'content-type': 'application/json', 'x-csrf-token': token }, payload });
  return { request, csrf, json };
}

const owner = browser(app);
const loginToken = await owner.csrf('/login');
const form = `username=bench&password=${encodeURIComponent('bench password')}&_csrf=${encodeURIComponent(loginToken)}`;
await owner.request({ method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
const accountToken = await owner.csrf('/account');
const user = (await stores.users.findByUsername('bench'))!;

const samples: Record<string, number[]> = {
  'registration options': [],
  'registration verification': [],
  'sign-in options': [],
  'sign-in verification': [],
};
async function timed<T>(name: string, run: boolean, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await work();
  if (run) samples[name]!.push(performance.now() - start);
  return result;
}
function expectStatus(response: { statusCode: number; body: string }, status: number) {
  if (response.statusCode !== status) throw new Error(`expected ${status}, got ${response.statusCode}: ${response.body.slice(0, 200)}`);
}

const signer = new SoftwareAuthenticator({ countsSignatures: true });
for (let run = -30; run < runs; run++) {
  const measured = run >= 0;
  // Registration: a new authenticator each time, removed afterwards so that excludeCredentials stays one entry long.
  const authenticator = run === -30 ? signer : new SoftwareAuthenticator();
  const options = await timed('registration options', measured, () => owner.json('/account/passkeys/options', accountToken, {}));
  expectStatus(options, 200);
  const response = authenticator.register(options.json(), HERE);
  const registered = await timed('registration verification', measured, () =>
    owner.json('/account/passkeys', accountToken, { name: 'Bench', response }),
  );
  expectStatus(registered, 201);
  if (authenticator !== signer) await stores.passkeys.deleteOfUser(user.id, registered.json().id);

  // Sign-in with the first passkey, in a new browser each time.
  const visitor = browser(app);
  const token = await visitor.csrf('/login');
  const challenge = await timed('sign-in options', measured, () => visitor.json('/login/passkey/options', token, {}));
  const assertion = signer.assert(challenge.json(), HERE);
  const signedIn = await timed('sign-in verification', measured, () => visitor.json('/login/passkey', token, { response: assertion }));
  expectStatus(signedIn, 200);
}

const stat = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, p50: at(0.5), p99: at(0.99) };
};
console.log(`passkey ceremonies on ${databaseUrl ? 'PostgreSQL' : 'PGlite (in memory)'}, ${runs} runs each after 30 warm-ups\n`);
console.log('| step | mean | p50 | p99 |\n|---|---|---|---|');
for (const [name, values] of Object.entries(samples)) {
  const { mean, p50, p99 } = stat(values);
  console.log(`| ${name} | ${mean.toFixed(3)} ms | ${p50.toFixed(3)} ms | ${p99.toFixed(3)} ms |`);
}
await app.close();
await database.close();
