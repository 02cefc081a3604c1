import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { createClient, issueToken } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';

// The claims of issue 16 through the CLI: users create/update with one option per claim, show, list --search,
// disable and enable. Each CLI call opens and closes the database, as an operator's would.
describe(`oauth-service users claims (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown> & { claims: Record<string, unknown> };

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('users create <name> sets every claim from its option, and --json shows subject, disabled_at and claims', async () => {
    const result = await cli.run(
      [
        'users',
        'create',
        'alice',
        '--password',
        'long enough password',
        '--name',
        'Alice Liddell',
        '--given-name',
        'Alice',
        '--family-name',
        'Liddell',
        '--middle-name',
        'Pleasance',
        '--nickname',
        'Al',
        '--preferred-username',
        'alice.l',
        '--email',
        'alice@example.com',
        '--email-verified',
        '--phone-number',
        '+44 20 7946 0958',
        '--phone-number-verified',
        '--profile',
        'https://example.com/alice',
        '--picture',
        'https://example.com/alice.png',
        '--website',
        'http://alice.example.org',
        '--gender',
        'female',
        '--birthdate',
        '1852-05-04',
        '--zoneinfo',
        'Europe/London',
        '--locale',
        'en-GB',
        '--address-street-address',
        'Christ Church',
        '--address-locality',
        'Oxford',
        '--address-postal-code',
        'OX1 1DP',
        '--address-country',
        'UK',
        '--json',
      ],
      '',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const user = json(result.stdout);
    expect(user.subject).toMatch(/^[0-9a-f-]{36}$/);
    expect(user.disabled_at).toBeNull();
    expect(user.claims).toEqual({
      name: 'Alice Liddell',
      given_name: 'Alice',
      family_name: 'Liddell',
      middle_name: 'Pleasance',
      nickname: 'Al',
      preferred_username: 'alice.l',
      email: 'alice@example.com',
      email_verified: true,
      phone_number: '+44 20 7946 0958',
      phone_number_verified: true,
      profile: 'https://example.com/alice',
      picture: 'https://example.com/alice.png',
      website: 'http://alice.example.org',
      gender: 'female',
      birthdate: '1852-05-04',
      zoneinfo: 'Europe/London',
      locale: 'en-GB',
      address: { street_address: 'Christ Church', locality: 'Oxford', postal_code: 'OX1 1DP', country: 'UK' },
    });
    expect(result.stdout).not.toContain('argon2');
    expect(result.stdout).not.toContain('password');
  });

  it('users update changes only the claims given; "" clears one; updated_at moves', async () => {
    const before = json((await cli.run(['users', 'show', 'alice', '--json'])).stdout);
    const result = await cli.run([
      'users',
      'update',
      'alice',
      '--email',
      'alice@wonderland.example',
      '--no-email-verified',
      '--nickname',
      '',
      '--address-locality',
      'London',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const after = json(result.stdout);
    expect(after.claims).toEqual({
      ...before.claims,
      email: 'alice@wonderland.example',
      email_verified: false,
      nickname: null,
      address: { street_address: 'Christ Church', locality: 'London', postal_code: 'OX1 1DP', country: 'UK' },
    });
    expect(after.subject).toBe(before.subject);
    expect(Date.parse(after.profile_updated_at as string)).toBeGreaterThan(Date.parse(before.profile_updated_at as string));

    const text = await cli.run(['users', 'show', '--username', 'alice']);
    expect(text.stdout).toContain(`subject ${String(before.subject)}`);
    expect(text.stdout).toContain('  email: alice@wonderland.example\n');
    expect(text.stdout).not.toContain('nickname');
  });

  it('invalid claims, contradicting flags and an update without changes exit 2 with one line and change nothing', async () => {
    const cases: Array<[string[], string]> = [
      [['users', 'update', 'alice', '--email', 'not-an-email'], 'Email must be an email address'],
      [['users', 'update', 'alice', '--website', 'javascript:alert(1)'], 'Website must be an absolute https or http URL'],
      [['users', 'update', 'alice', '--birthdate', '1852-13-01'], 'Birthdate must be YYYY or YYYY-MM-DD'],
      [['users', 'update', 'alice', '--zoneinfo', 'Nowhere/Land'], 'Zoneinfo must be a time zone'],
      [['users', 'update', 'alice', '--locale', 'en US'], 'Locale must be a BCP47 language tag'],
      [['users', 'update', 'alice', '--email-verified', '--no-email-verified'], 'contradict each other'],
      [['users', 'update', 'alice'], 'nothing to change'],
      [['users', 'update', 'nobody', '--name', 'X'], 'no user named nobody'],
      [['users', 'update', 'alice', 'bob', '--name', 'X'], "unexpected argument 'bob'"],
      [['users', 'create', 'carol', '--password', 'long enough pw', '--picture', 'ftp://x/y.png'], 'Picture must be an absolute'],
    ];
    for (const [argv, message] of cases) {
      const result = await cli.run(argv);
      expect(usageErrorLine(result), argv.join(' ')).toContain(message);
      expect(result.stdout).toBe('');
    }
    const alice = json((await cli.run(['users', 'show', 'alice', '--json'])).stdout);
    expect(alice.claims.email).toBe('alice@wonderland.example');
    expect((await cli.run(['users', 'show', 'carol'])).code).toBe(2);
  });

  it('users disable revokes every token at once and enable lets the user back in, tokens staying revoked', async () => {
    const token = await cli.withDeps(async (deps) => {
      const alice = (await deps.stores.users.findByUsername('alice'))!;
      const client = await createClient(deps);
      return (await issueToken(deps, { application: client.application, resourceOwnerId: alice.id })).record.token;
    });
    const disabled = await cli.run(['users', 'disable', 'alice', '--json']);
    expect(disabled.code).toBe(0);
    expect(json(disabled.stdout)).toMatchObject({ username: 'alice', disabled_at: expect.any(String), revoked: { tokens: 1, grants: 0 } });
    const listed = await cli.run(['users', 'list']);
    expect(listed.stdout).toMatch(/alice\s+alice@wonderland\.example\s+disabled/);
    // Again: nothing changes and it says so, as apps disable does (CLI audit), with no second user.disabled event.
    const disabledAt = json(disabled.stdout).disabled_at;
    const again = await cli.run(['users', 'disable', 'alice']);
    expect([again.code, again.stdout]).toEqual([0, `user alice was already disabled at ${disabledAt}\n`]);
    const events = JSON.parse((await cli.run(['audit', 'list', '--json'])).stdout) as Array<{ type: string }>;
    expect(events.filter((event) => event.type === 'user.disabled')).toHaveLength(1);

    const enabled = await cli.run(['users', 'enable', 'alice']);
    expect(enabled.stdout).toBe('enabled user alice: they can log in again\n');
    const state = await cli.withDeps(async (deps) => ({
      disabledAt: (await deps.stores.users.findByUsername('alice'))!.disabledAt,
      revokedAt: (await deps.stores.accessTokens.findByToken(token))!.revokedAt,
    }));
    expect(state.disabledAt).toBeNull();
    expect(state.revokedAt).toBeInstanceOf(Date);
  });

  it('users list --search matches username, name or email in any case, % and _ literally', async () => {
    await cli.run([
      'users',
      'create',
      'bob_smith',
      '--password',
      'long enough pw',
      '--name',
      'Robert Smith',
      '--email',
      'BOB@corp.example',
    ]);
    const usernames = async (search: string) =>
      (JSON.parse((await cli.run(['users', 'list', '--search', search, '--json'])).stdout) as Array<{ username: string }>).map(
        (user) => user.username,
      );
    expect(await usernames('ROBERT')).toEqual(['bob_smith']);
    expect(await usernames('corp.EXAMPLE')).toEqual(['bob_smith']);
    expect(await usernames('wonderland')).toEqual(['alice']);
    expect(await usernames('_')).toEqual(['bob_smith']);
    expect(await usernames('%')).toEqual([]);
    expect((await cli.run(['users', 'list', '--search', 'zzz'])).stdout).toBe('no user matches\n');
  });

  it('users --help documents the claim options and how to clear one', async () => {
    const result = await cli.run(['users', 'update', '--help']);
    expect(result.code).toBe(0);
    for (const text of ['--given-name', '--phone-number-verified', '--address-country', 'an empty value "" clears a claim', 'disable']) {
      expect(result.stdout).toContain(text);
    }
  });
});
