import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import { runService, startService, stopService } from '../helpers/processes.js';

// Issue 14, the rest of the first hour: what a newcomer or an operator meets at boot, with the real executable.
describe('oauth-service at boot', () => {
  let root: string;
  const secret = { SESSION_SECRET: 'x'.repeat(40) };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'oauth-boot-problems-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('NODE_ENV=production: the CLI and the server refuse an embedded folder without a database, naming DATABASE_URL, and create nothing; OAUTH_CREATE_EMBEDDED_DATABASE=1 creates it', async () => {
    const dataDir = join(root, 'production-data');
    const env = { ...secret, NODE_ENV: 'production', DATA_DIR: dataDir };
    for (const args of [['apps', 'list'], ['serve']]) {
      const refused = await runService(args, env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`no embedded database in ${dataDir}, and NODE_ENV is production: DATABASE_URL is probably missing`);
      expect(refused.stdout).not.toContain('no applications');
    }
    expect(existsSync(dataDir)).toBe(false);

    const created = await runService(['apps', 'list', '--json'], { ...env, OAUTH_CREATE_EMBEDDED_DATABASE: '1' });
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual([]);
    // Once it exists, production uses it without the flag.
    expect((await runService(['apps', 'list', '--json'], env)).code).toBe(0);

    // Issue 32 item 2: production without a session secret does not start (before it touches the database), and an
    // http issuer (here derived from the listening address) is warned about in the log and the banner.
    const { SESSION_SECRET: _secret, ...withoutSecret } = env;
    const refused = await runService(['serve'], withoutSecret);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^oauth-service: NODE_ENV is production and no session secret is set: set SESSION_SECRET \(or sessionSecretFile/,
      ),
    ]);
    const service = await startService(env);
    try {
      expect(service.output()).toContain(`WARNING: the issuer ${service.baseUrl} is not https while NODE_ENV is production`);
      expect(service.output()).toMatch(/"level":40,.*"event":"config.insecure_issuer"/);
    } finally {
      expect(await stopService(service.child)).toBe(0);
    }
  }, 90_000);

  it('a port already in use ends the embedded-database server at once with exit 1 and the message, before it creates a data folder (issue 32)', async () => {
    const dataDir = join(root, 'port-in-use');
    const busy: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)),
    );
    try {
      const started = Date.now();
      const result = await runService(['serve'], { ...secret, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      busy.close();
    }
  }, 60_000);

  it('without BASE_URL the base URL is the address it listens on (PORT), and says so; with baseUrl in ./config.json (found in the working directory, issue 32) it is that, and the banner names the file', async () => {
    const env = { ...secret, DATA_DIR: join(root, 'base-url') };
    const derived = await startService(env);
    try {
      expect(derived.output()).toContain(`oauth-service is running at ${derived.baseUrl} (listening on`);
      expect(derived.output()).toContain('base URL: derived from the listening address');
      expect(derived.output()).toContain('\nconfig: none (defaults)\n');
      const metadata = (await (await fetch(`${derived.baseUrl}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
        token_endpoint: string;
      };
      expect(metadata.issuer).toBe(derived.baseUrl);
      expect(metadata.token_endpoint).toBe(`${derived.baseUrl}/oauth/token`);
    } finally {
      expect(await stopService(derived.child)).toBe(0);
    }

    const workingDirectory = join(root, 'working-directory');
    mkdirSync(workingDirectory);
    writeFileSync(join(workingDirectory, 'config.json'), JSON.stringify({ baseUrl: 'https://auth.example.com' }));
    const configured = await startService({ ...env, OAUTH_CONFIG: undefined }, workingDirectory);
    try {
      expect(configured.output()).toContain('oauth-service is running at https://auth.example.com (listening on');
      expect(configured.output()).toContain(`\nconfig: ${join(workingDirectory, 'config.json')}\n`);
      expect(configured.output()).not.toContain('derived from the listening address');
      const metadata = (await (await fetch(`${configured.baseUrl}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
      expect(metadata.issuer).toBe('https://auth.example.com');
    } finally {
      expect(await stopService(configured.child)).toBe(0);
    }
  }, 120_000);

  it('a PostgreSQL that refuses the connection is reported with DATABASE_URL named and its password hidden, by the CLI and the server', async () => {
    const url = `postgresql://someone:hunter2-secret@127.0.0.1:${await freePort()}/oauth`;
    for (const args of [['apps', 'list'], ['serve']]) {
      const result = await runService(args, { ...secret, DATABASE_URL: url });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('cannot connect to the database of DATABASE_URL (postgresql://someone:***@127.0.0.1:');
      expect(result.stderr).toContain('ECONNREFUSED');
      expect(result.stderr + result.stdout).not.toContain('hunter2-secret');
    }
  }, 60_000);

  it('postgresql:///db (no host) connects to the local Unix socket of PGHOST, as psql does', async () => {
    const socketDir = join(root, 'no-postgres-here');
    const result = await runService(['apps', 'list'], { ...secret, DATABASE_URL: 'postgresql:///oauth', PGHOST: socketDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot connect to the database of DATABASE_URL (postgresql:///oauth)');
    expect(result.stderr).toContain(`${socketDir}/.s.PGSQL.5432`);
  }, 30_000);

  it('issue 32 item 3: a config.json that is not JSON (line and column), a misspelled key (did you mean), TRUST_PROXY=maybe (what is valid)', async () => {
    const folder = join(root, 'messages');
    mkdirSync(folder);
    const file = join(folder, 'config.json');
    const serve = () => runService(['serve'], { ...secret, OAUTH_CONFIG: undefined, DATA_DIR: join(folder, 'data') }, '', folder);
    writeFileSync(file, '{\n  "port": 3000,\n}\n');
    const notJson = await serve();
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toBe(`oauth-service: ${file} line 3, column 1: Expected double-quoted property name (not valid JSON)\n`);
    writeFileSync(file, JSON.stringify({ instrospection: { enabled: false } }));
    const misspelled = await serve();
    expect(misspelled.stderr).toContain(
      `Invalid configuration in ${file}:\n  - instrospection: unknown key (did you mean \`introspection\`?)`,
    );
    const trustProxy = await runService(['serve'], { ...secret, TRUST_PROXY: 'maybe', DATA_DIR: join(folder, 'data') });
    expect(trustProxy.code).toBe(2);
    expect(trustProxy.stderr).toContain(
      'oauth-service: Invalid environment variable TRUST_PROXY: must be true or false, a number of proxy hops (1 to 32), or the addresses/CIDRs of the proxies separated by commas',
    );
    expect(trustProxy.stderr).not.toContain('must be boolean');
    expect(existsSync(join(folder, 'data'))).toBe(false);
  }, 60_000);
});
