import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const occurrences = (text: string, part: string) => text.split(part).length - 1;

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine. Creating and listing
// here; changing, deleting and the process in cli-apps-changes.test.ts.
describe(`oauth-service apps (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const storedSecret = (uid: string) => cli.storedSecret(uid);

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
    // A secret read from a file with its newline: stored, it would never match what the client sends.
    const withNewline = await cli.run([
      'apps',
      'create',
      '--name',
      'Newline',
      '--redirect-uri',
      'https://n.example.com/cb',
      '--uid',
      'newline-client',
      '--secret',
      `${'x'.repeat(40)}\n`,
    ]);
    expect(usageErrorLine(withNewline)).toBe(
      'oauth-service: Secret must be printable ASCII characters, without a line break (RFC 6749 appendix A.2)',
    );
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

  it("a number that is one application's imported uid and another's id names neither: exit 2 saying how to name each", async () => {
    const first = JSON.parse(
      await cli.stdout(['apps', 'create', '--name', 'First', '--redirect-uri', 'https://first.example.com/cb', '--json']),
    );
    const numeric = String(first.id);
    const imported = await cli.run([
      'apps',
      'create',
      '--name',
      'Imported',
      '--redirect-uri',
      'https://imported.example.com/cb',
      '--uid',
      numeric,
      '--json',
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    const importedId = JSON.parse(imported.stdout).id;
    const before = await cli.applicationCount();
    expect(usageErrorLine(await cli.run(['apps', 'delete', numeric]))).toBe(
      `oauth-service: ${numeric} is the uid of application ${importedId} and the id of application ${first.uid}: give ${importedId} or ${first.uid}`,
    );
    expect(await cli.applicationCount()).toBe(before);
    expect(JSON.parse(await cli.stdout(['apps', 'show', String(importedId), '--json']))).toMatchObject({ uid: numeric, name: 'Imported' });
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
      // parseArgs keeps the last of two: one of them would be dropped without a word.
      [
        ['apps', 'create', '--name', 'A', '--name', 'B', '--redirect-uri', 'https://x.example.com/cb'],
        "Option '--name' is given more than once: give it once.",
      ],
      [['apps', 'list', '--config', 'none', '-c', 'none'], "Option '--config' is given more than once: give it once."],
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
});
