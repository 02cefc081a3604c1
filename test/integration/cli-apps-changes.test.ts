import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { createCode, createUser, issueToken } from '../helpers/factories.js';
import { ROOT } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine. Changing and deleting
// applications, and the CLI as a process; creating and listing in cli-apps.test.ts.
describe(`oauth-service apps changes (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const storedSecret = (uid: string) => cli.storedSecret(uid);

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps create without --redirect-uri registers a client_credentials client where no enabled flow redirects', async () => {
    const machines = await createCliHarness({ grantFlows: ['client_credentials'] });
    try {
      const result = await machines.run(['apps', 'create', '--name', 'Cron job', '--json']);
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toMatchObject({ name: 'Cron job', redirect_uri: '', confidential: true });
    } finally {
      await machines.close();
    }
    const both = await createCliHarness({ grantFlows: ['authorization_code', 'implicit', 'client_credentials'] });
    try {
      expect(usageErrorLine(await both.run(['apps', 'create', '--name', 'SPA', '--public']))).toBe(
        'oauth-service: missing required option --redirect-uri (required while grantFlows has authorization_code and implicit; an application whose --grant-types redirect nowhere, such as client_credentials alone, needs none)',
      );
      // Grant types of its own that redirect nowhere: no redirect URI needed, whatever the server enables (issue 34).
      const job = await both.run(['apps', 'create', '--name', 'Nightly job', '--grant-types', 'client_credentials', '--json']);
      expect(job.stderr).toBe('');
      expect(JSON.parse(job.stdout)).toMatchObject({ name: 'Nightly job', redirect_uri: '', grant_types: ['client_credentials'] });
      expect(
        usageErrorLine(await both.run(['apps', 'create', '--name', 'Web', '--grant-types', 'client_credentials authorization_code'])),
      ).toBe('oauth-service: missing required option --redirect-uri (required while --grant-types has authorization_code)');
      // Nor can an update give it a redirecting grant while it has no redirect URI.
      const jobId = String(JSON.parse(job.stdout).id);
      expect(usageErrorLine(await both.run(['apps', 'update', jobId, '--grant-types', 'authorization_code']))).toContain(
        "Redirect URI can't be blank",
      );
    } finally {
      await both.close();
    }
  });

  it('apps create --json and apps show --json print grant_types as apply files name them, [] for every enabled grant', async () => {
    const grants = 'client_credentials refresh_token';
    const create = ['apps', 'create', '--name', 'Grants', '--redirect-uri', 'https://g.example.com/cb'];
    const created = await cli.json([...create, '--grant-types', grants]);
    expect(created.grant_types).toEqual(['client_credentials', 'refresh_token']);
    expect((await cli.json(['apps', 'show', created.uid])).grant_types).toEqual(['client_credentials', 'refresh_token']);
    expect(await cli.stdout(['apps', 'show', created.uid])).toContain(`  grant types:    ${grants}\n`);

    const unrestricted = await cli.json(create);
    expect(unrestricted.grant_types).toEqual([]);
    expect((await cli.json(['apps', 'show', unrestricted.uid])).grant_types).toEqual([]);
  });

  it('every apps subcommand answers --help with its usage and exit code 0', async () => {
    for (const sub of [
      [],
      ['create'],
      ['list'],
      ['show'],
      ['update'],
      ['delete'],
      ['rotate-secret'],
      ['approve'],
      ['disable'],
      ['enable'],
    ]) {
      const result = await cli.run(['apps', ...sub, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: oauth-service apps');
    }
  });

  it('apps update changes only the options given; --public drops the secret and --confidential issues one once', async () => {
    const created = JSON.parse(
      (await cli.run(['apps', 'create', '--name', 'Before', '--redirect-uri', 'https://u.example.com/cb', '--scopes', 'read', '--json']))
        .stdout,
    );
    const renamed = await cli.run(['apps', 'update', created.uid, '--name', 'After', '--json']);
    expect(renamed.code).toBe(0);
    const after = JSON.parse(renamed.stdout);
    expect(after).toMatchObject({ name: 'After', redirect_uri: 'https://u.example.com/cb', scopes: ['read'], confidential: true });
    expect(after).not.toHaveProperty('secret');
    expect(await storedSecret(created.uid)).toBe(sha256Hex(created.secret));

    expect(JSON.parse((await cli.run(['apps', 'update', String(created.id), '--public', '--json'])).stdout)).toMatchObject({
      confidential: false,
    });
    expect(await storedSecret(created.uid)).toBeNull();
    const confidential = JSON.parse((await cli.run(['apps', 'update', created.uid, '--confidential', '--json'])).stdout);
    expect(confidential.secret).toMatch(SECRET_PATTERN);
    expect(await storedSecret(created.uid)).toBe(sha256Hex(confidential.secret));

    expect(usageErrorLine(await cli.run(['apps', 'update', created.uid]))).toContain('nothing to update');
    expect(usageErrorLine(await cli.run(['apps', 'update', created.uid, '--public', '--confidential']))).toContain('not both');
    expect(usageErrorLine(await cli.run(['apps', 'update', created.uid, '--redirect-uri', 'not a uri']))).toContain('Redirect URI');
    expect(JSON.parse((await cli.run(['apps', 'show', created.uid, '--json'])).stdout).redirect_uri).toBe('https://u.example.com/cb');
  });

  it('apps rotate-secret prints a new secret once and the old one is no longer stored; a public client exits 2', async () => {
    const created = JSON.parse(
      (await cli.run(['apps', 'create', '--name', 'Rotor', '--redirect-uri', 'https://r.example.com/cb', '--json'])).stdout,
    );
    const result = await cli.run(['apps', 'rotate-secret', created.uid, '--json']);
    expect(result.code).toBe(0);
    const rotated = JSON.parse(result.stdout);
    expect(rotated.secret).toMatch(SECRET_PATTERN);
    expect(rotated.secret).not.toBe(created.secret);
    expect(await storedSecret(created.uid)).toBe(sha256Hex(rotated.secret));
    expect((await cli.run(['apps', 'rotate-secret', created.uid])).stdout).toContain('shown only this once');

    const spa = JSON.parse(
      (await cli.run(['apps', 'create', '--name', 'SPA2', '--redirect-uri', 'https://spa2.example.com/cb', '--public', '--json'])).stdout,
    );
    expect(usageErrorLine(await cli.run(['apps', 'rotate-secret', spa.uid]))).toBe(
      'oauth-service: A public client has no secret to rotate',
    );
  });

  it('apps delete removes the application with its grants and tokens', async () => {
    const created = JSON.parse(
      (await cli.run(['apps', 'create', '--name', 'Doomed', '--redirect-uri', 'https://d.example.com/cb', '--json'])).stdout,
    );
    await cli.withDeps(async (deps) => {
      const application = (await deps.stores.applications.findByUid(created.uid))!;
      const user = await createUser(deps);
      await issueToken(deps, { application, resourceOwnerId: user.id });
      await createCode(deps, { application, resourceOwnerId: user.id });
    });
    const result = await cli.run(['apps', 'delete', created.uid, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ deleted: true, id: created.id, uid: created.uid });
    const remaining = await cli.withDeps(async (_deps, database) => {
      const count = async (table: string) =>
        (await database.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE application_id = $1`, [created.id]))[0]!.n;
      return { tokens: await count('oauth_access_tokens'), grants: await count('oauth_access_grants') };
    });
    expect(remaining).toEqual({ tokens: 0, grants: 0 });
    expect(usageErrorLine(await cli.run(['apps', 'show', created.uid]))).toContain('no application with uid or id');
  });
});

// The real executable (`npx tsx src/main.ts`, as `npm run cli` runs it); npx itself is left out because npm
// adds its own warnings to stderr.
describe(`oauth-service apps as a process (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...cli.env };
      execFile(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'src/main.ts'), ...args], { cwd: ROOT, env }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps list --json on a fresh database exits 0 and prints []', async () => {
    const result = await run(['apps', 'list', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
  });

  it('apps create without --name exits 2 with a one-line error', async () => {
    const result = await run(['apps', 'create', '--redirect-uri', 'https://x.example.com/cb']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual(['oauth-service: missing required option --name']);
    expect(result.stdout).toBe('');
  });
});
