import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { SOCKET_PORT } from '../../src/storage/embedded-socket.js';
import { readMigrations } from '../../src/storage/migrate.js';
import { runService, startService, stopService } from '../helpers/processes.js';

// Issue 14: the quick start as a newcomer runs it. `npm start` on the embedded database, then the CLI in
// another terminal: every command acts on the running server's database (through the data folder's socket),
// at once, and nothing is lost across a restart or a SIGKILL.
describe('CLI commands while the server runs on the embedded database', () => {
  let root: string;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'oauth-quick-start-'));
    dataDir = join(root, 'data');
    const configPath = join(root, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        grantFlows: ['client_credentials', 'password', 'refresh_token'],
        introspection: { allow: [{ rule: 'tokenApplication' }] },
      }),
    );
    env = { OAUTH_CONFIG: configPath, DATA_DIR: dataDir, SESSION_SECRET: 'x'.repeat(40) };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const cli = async (args: string[], stdin = '') => {
    const result = await runService(args, env, stdin);
    if (result.code !== 0) throw new Error(`oauth-service ${args.join(' ')} exited with ${result.code}:\n${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  const token = (baseUrl: string, credentials: string, body: Record<string, string>) =>
    fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(body),
    });
  const introspect = async (baseUrl: string, credentials: string, accessToken: string) => {
    const response = await fetch(`${baseUrl}/oauth/introspect`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: accessToken }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { active: boolean }).active;
  };

  it('apps create, users create, apps rotate-secret, users revoke-tokens and tokens cleanup take effect at once, and survive a restart', async () => {
    const server = await startService(env);
    try {
      expect(server.output()).toContain('npm run cli -- apps create --name "My app" --redirect-uri https://app.example.com/callback');

      const app = JSON.parse(
        await cli(['apps', 'create', '--name', 'My app', '--redirect-uri', 'https://app.example.com/callback', '--json']),
      ) as { uid: string; secret: string };
      const firstCredentials = `${app.uid}:${app.secret}`;
      expect((await token(server.baseUrl, firstCredentials, { grant_type: 'client_credentials' })).status).toBe(200);

      await cli(['users', 'create', '--username', 'alice'], 'a long password\n');
      const login = await token(server.baseUrl, firstCredentials, {
        grant_type: 'password',
        username: 'alice',
        password: 'a long password',
      });
      expect(login.status).toBe(200);
      const { access_token: aliceToken } = (await login.json()) as { access_token: string };

      const rotated = JSON.parse(await cli(['apps', 'rotate-secret', app.uid, '--json'])) as { secret: string };
      const credentials = `${app.uid}:${rotated.secret}`;
      expect((await token(server.baseUrl, firstCredentials, { grant_type: 'client_credentials' })).status).toBe(401);
      expect((await token(server.baseUrl, credentials, { grant_type: 'client_credentials' })).status).toBe(200);

      expect(await introspect(server.baseUrl, credentials, aliceToken)).toBe(true);
      await cli(['users', 'revoke-tokens', '--username', 'alice']);
      expect(await introspect(server.baseUrl, credentials, aliceToken)).toBe(false);

      // The server keeps answering while a CLI command is connected to its database.
      const [cleanup, ...statuses] = await Promise.all([
        cli(['tokens', 'cleanup', '--json']),
        ...Array.from({ length: 20 }, () => token(server.baseUrl, credentials, { grant_type: 'client_credentials' }).then((r) => r.status)),
      ]);
      expect(statuses).toEqual(statuses.map(() => 200));
      expect(JSON.parse(cleanup as string)).toMatchObject({ dry_run: false });
      expect(JSON.parse(await cli(['apps', 'list', '--json']))).toHaveLength(1);
    } finally {
      expect(await stopService(server.child)).toBe(0);
    }

    const restarted = await startService(env);
    try {
      const apps = JSON.parse(await cli(['apps', 'list', '--json'])) as Array<{ uid: string }>;
      expect(apps).toHaveLength(1);
      const users = JSON.parse(await cli(['users', 'list', '--json'])) as Array<{ username: string }>;
      expect(users.map((user) => user.username)).toEqual(['alice']);
    } finally {
      expect(await stopService(restarted.child)).toBe(0);
    }
  }, 180_000);

  it('a command of a newer version refuses to migrate the folder under a running older server (exit 1, naming it)', async () => {
    const server = await startService(env);
    // An older server: one that lacks this version's last migration, which is then pending as this version sees it.
    // The socket serves one client at a time: this one leaves before the commands connect.
    const throughSocket = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ host: dataDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' });
      await client.connect();
      try {
        return await work(client);
      } finally {
        await client.end();
      }
    };
    const last = readMigrations().at(-1)!.name;
    const row = await throughSocket(
      async (client) =>
        (await client.query('DELETE FROM "_prisma_migrations" WHERE migration_name = $1 RETURNING *', [last])).rows[0] as Record<
          string,
          unknown
        >,
    );
    try {
      for (const command of [['migrate'], ['apps', 'list']]) {
        const refused = await runService(command, env);
        expect({ command, code: refused.code }).toEqual({ command, code: 1 });
        expect(refused.stderr).toContain(
          `the server running as process ${server.child.pid} on this data folder is an older version of oauth-service (its database lacks this version's migrations ${last}): stop it`,
        );
      }
    } finally {
      const columns = Object.keys(row);
      await throughSocket((client) =>
        client.query(
          `INSERT INTO "_prisma_migrations" (${columns.map((column) => `"${column}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
          Object.values(row),
        ),
      );
      expect(await stopService(server.child)).toBe(0);
    }
    // The folder as it was: nothing was applied under the server.
    expect(await cli(['migrate', '--status'])).toContain('pending: none');
  }, 180_000);

  it('a second server on the same folder stops at boot naming the folder and the pid; after a SIGKILL the folder is taken over with nothing acknowledged lost', async () => {
    const first = await startService(env);
    let created: { uid: string; secret: string };
    try {
      const second = await runService(['serve'], { ...env, PORT: '0' });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`the embedded database ${dataDir} is in use by the server running as process ${first.child.pid}`);

      created = JSON.parse(
        await cli(['apps', 'create', '--name', 'Before the kill', '--redirect-uri', 'https://app.example.com/cb', '--json']),
      ) as { uid: string; secret: string };
    } finally {
      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('exit', resolve));
    }
    expect(existsSync(join(dataDir, 'oauth-service.lock'))).toBe(true);

    const recovered = await startService(env);
    try {
      expect((await token(recovered.baseUrl, `${created.uid}:${created.secret}`, { grant_type: 'client_credentials' })).status).toBe(200);
    } finally {
      expect(await stopService(recovered.child)).toBe(0);
    }
    expect(existsSync(join(dataDir, 'oauth-service.lock'))).toBe(false);
    // No server: the CLI opens the folder itself, as before.
    expect(JSON.parse(await cli(['apps', 'list', '--json']))).toHaveLength(2);
  }, 180_000);

  it('the socket is reachable by its owner only: mode 0600 in an owner-only folder; a server whose pid is not visible is known by its socket', async () => {
    const server = await startService(env);
    try {
      const socket = join(dataDir, '.s.PGSQL.5432');
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      expect(statSync(dataDir).mode & 0o077).toBe(0);
      if (process.getuid?.() === 0) {
        // Another user (nobody) cannot connect: the folder does not let it reach the socket.
        const probe = `require('net').connect(${JSON.stringify(socket)}).on('connect', () => { console.log('connected'); process.exit(0) }).on('error', (e) => { console.log(e.code); process.exit(0) })`;
        const answer = execFileSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', probe], { cwd: '/', encoding: 'utf8' });
        expect(answer.trim()).toBe('EACCES');
      }

      // A server whose pid means nothing here (another container sharing the volume) is known by its socket.
      const lock = join(dataDir, 'oauth-service.lock');
      writeFileSync(lock, `${JSON.stringify({ pid: spawnSync('true').pid, role: 'server', startTime: null })}\n`);
      expect((await runService(['apps', 'list', '--json'], env)).code).toBe(0);
      expect((await runService(['serve'], { ...env, PORT: '0' })).code).toBe(1);
      expect(readFileSync(lock, 'utf8')).toContain('"role":"server"');
    } finally {
      expect(await stopService(server.child)).toBe(0);
    }
    expect(existsSync(join(dataDir, '.s.PGSQL.5432'))).toBe(false);
  }, 120_000);

  it('a CLI command that finds a live owner without a reachable socket says so and opens no copy', async () => {
    const lonely = join(root, 'lonely');
    const ownerLess = await runService(['apps', 'list', '--json'], { ...env, DATA_DIR: lonely });
    expect(ownerLess.code).toBe(0);
    // A live process (this test) that claims to be the server, with no socket.
    writeFileSync(join(lonely, 'oauth-service.lock'), `${JSON.stringify({ pid: process.pid, role: 'server', startTime: null })}\n`);
    const result = await runService(['apps', 'list'], { ...env, DATA_DIR: lonely });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `is in use by the server running as process ${process.pid}, but its socket ${join(lonely, '.s.PGSQL.5432')} cannot be reached`,
    );
  }, 60_000);
});
