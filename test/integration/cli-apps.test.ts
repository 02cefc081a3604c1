import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { createCode, createUser, issueToken } from '../helpers/factories.js';
import { ROOT } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const occurrences = (text: string, part: string) => text.split(part).length - 1;

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service apps (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const storedSecret = (uid: string) =>
    cli.withDeps(async (_deps, database) => {
      const rows = await database.sql.query<{ secret: string | null }>('SELECT secret FROM oauth_applications WHERE uid = $1', [uid]);
      return rows[0]?.secret;
    });

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps create --json prints the uid and a 43-character secret once, and stores only its SHA-256 hex', async () => {
    const result = await cli.run([
      'apps',
      'create',
      '--name',
      'Billing',
      '--redirect-uri',
      'https://billing.example.com/cb',
      '--redirect-uri',
      'http://127.0.0.1/cb',
      '--scopes',
      'read',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created).toMatchObject({
      name: 'Billing',
      redirect_uri: 'https://billing.example.com/cb\nhttp://127.0.0.1/cb',
      scopes: ['read'],
      confidential: true,
    });
    expect(created.id).toEqual(expect.any(Number));
    expect(created.uid).toMatch(SECRET_PATTERN);
    expect(created.secret).toMatch(SECRET_PATTERN);
    expect(occurrences(result.stdout, created.secret)).toBe(1);
    expect(await storedSecret(created.uid)).toBe(sha256Hex(created.secret));

    const text = await cli.run(['apps', 'create', '--name', 'Texty', '--redirect-uri', 'https://t.example.com/cb']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('shown only this once');
  });

  it('apps list and apps show never print a secret or its hash', async () => {
    const created = JSON.parse(
      (await cli.run(['apps', 'create', '--name', 'Quiet', '--redirect-uri', 'https://q.example.com/cb', '--json'])).stdout,
    );
    const hash = sha256Hex(created.secret);
    for (const argv of [
      ['apps', 'list'],
      ['apps', 'list', '--json'],
      ['apps', 'show', created.uid],
      ['apps', 'show', String(created.id), '--json'],
    ]) {
      const result = await cli.run(argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(created.uid);
      expect(result.stdout).not.toContain(created.secret);
      expect(result.stdout).not.toContain(hash);
    }
    const listed = JSON.parse((await cli.run(['apps', 'list', '--json'])).stdout);
    expect(listed.find((app: { uid: string }) => app.uid === created.uid)).not.toHaveProperty('secret');
    expect((await cli.run(['apps', 'show', created.uid])).stdout).toContain('secret:         hashed');
  });

  it('apps create --public makes a client without a secret, and show calls it a public client', async () => {
    const result = await cli.run(['apps', 'create', '--name', 'SPA', '--redirect-uri', 'https://spa.example.com/cb', '--public', '--json']);
    const created = JSON.parse(result.stdout);
    expect(created).toMatchObject({ confidential: false, secret: null });
    expect(await storedSecret(created.uid)).toBeNull();
    expect((await cli.run(['apps', 'show', created.uid])).stdout).toContain('public client');
  });

  it('apps create --uid --secret imports an existing client; a secret under 32 characters or a taken uid exits 2', async () => {
    const secret = 'imported-secret-imported-secret-0123';
    const result = await cli.run([
      'apps',
      'create',
      '--name',
      'Legacy',
      '--redirect-uri',
      'https://legacy.example.com/cb',
      '--uid',
      'legacy-client',
      '--secret',
      secret,
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ uid: 'legacy-client', secret });
    expect(await storedSecret('legacy-client')).toBe(sha256Hex(secret));

    const before = await cli.applicationCount();
    const short = await cli.run([
      'apps',
      'create',
      '--name',
      'Short',
      '--redirect-uri',
      'https://s.example.com/cb',
      '--uid',
      'short-client',
      '--secret',
      'x'.repeat(31),
    ]);
    expect(usageErrorLine(short)).toBe('oauth-service: Secret must be at least 32 characters');
    const taken = await cli.run([
      'apps',
      'create',
      '--name',
      'Again',
      '--redirect-uri',
      'https://a.example.com/cb',
      '--uid',
      'legacy-client',
    ]);
    expect(usageErrorLine(taken)).toContain('legacy-client already exists');
    expect(await cli.applicationCount()).toBe(before);
  });

  it('an imported uid starting with "-" is reached after "--"; without it the error says so', async () => {
    const created = await cli.run([
      'apps',
      'create',
      '--name',
      'Dash',
      '--redirect-uri',
      'https://dash.example.com/cb',
      '--uid=-dash-client',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const shown = await cli.run(['apps', 'show', '--json', '--', '-dash-client']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ uid: '-dash-client', name: 'Dash' });
    expect(usageErrorLine(await cli.run(['apps', 'show', '-dash-client']))).toMatch(/after '--'/);
  });

  it('bad arguments exit 2 with one line and write nothing', async () => {
    const before = await cli.applicationCount();
    const cases: Array<[string[], string]> = [
      [['apps', 'create', '--redirect-uri', 'https://x.example.com/cb'], 'missing required option --name'],
      [
        ['apps', 'create', '--name', 'X'],
        'oauth-service: missing required option --redirect-uri (required while grantFlows has authorization_code; an application whose --grant-types redirect nowhere, such as client_credentials alone, needs none)',
      ],
      [['apps', 'create', '--name', 'X', '--redirect-uri', ''], "Redirect URI can't be blank"],
      [['apps', 'create', '--name', 'X', '--redirect-uri', 'http://insecure.example.com/cb'], 'Redirect URI'],
      [['apps', 'create', '--name', 'X', '--redirect-uri', 'https://x.example.com/cb', '--scopes', 'admin'], "Scopes doesn't match"],
      [['apps', 'create', '--name', 'X', '--bogus'], "Unknown option '--bogus'"],
      [['apps', 'create', '--name'], "'--name <value>' argument missing"],
      [['apps', 'frobnicate'], "unknown subcommand 'apps frobnicate'"],
      [['apps'], "expected 'apps create|list|show|update|delete|rotate-secret|approve|disable|enable'"],
      [['apps', 'show'], 'missing <uid|id>'],
      [['apps', 'show', 'nope-uid'], 'no application with uid or id nope-uid'],
      [['apps', 'delete', '999999'], 'no application with uid or id 999999'],
      [['apps', 'update', 'nope-uid', '--name', 'Y'], 'no application with uid or id nope-uid'],
      [['apps', 'list', 'extra'], 'Unexpected argument'],
    ];
    for (const [argv, message] of cases) {
      const result = await cli.run(argv);
      expect(usageErrorLine(result), argv.join(' ')).toContain(message);
      expect(result.stdout).toBe('');
    }
    expect(await cli.applicationCount()).toBe(before);
  });

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
