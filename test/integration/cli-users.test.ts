import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { startLoginSession } from '../../src/oauth/sessions/login-sessions.js';
import { createClient, createCode, issueToken } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service users (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const findUser = (username: string) => cli.withDeps((deps) => deps.stores.users.findByUsername(username));
  const passwordWorks = (username: string, password: string) =>
    cli.withDeps(async (deps) => {
      const user = await deps.stores.users.findByUsername(username);
      return user !== null && (await deps.passwords.verify(user.passwordHash, password));
    });

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('users create reads the password from the first line of stdin and stores an argon2id hash', async () => {
    const result = await cli.run(['users', 'create', '--username', 'alice', '--json'], 'correct horse battery\nignored second line\n');
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created).toEqual({
      id: expect.any(Number),
      username: 'alice',
      subject: expect.any(String),
      created_at: expect.any(String),
      disabled_at: null,
      profile_updated_at: expect.any(String),
      claims: expect.objectContaining({ email: null, email_verified: false, address: null }),
    });
    const user = await findUser('alice');
    expect(user!.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await passwordWorks('alice', 'correct horse battery')).toBe(true);
    expect(result.stdout).not.toContain('correct horse');
  });

  it('users create takes --password too, and users list shows users without hashes', async () => {
    const created = await cli.run(['users', 'create', '--username', 'bob', '--password', 'hunter2hunter2']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('created user bob');
    expect(await passwordWorks('bob', 'hunter2hunter2')).toBe(true);

    const listed = await cli.run(['users', 'list', '--json']);
    expect(JSON.parse(listed.stdout).map((user: { username: string }) => user.username)).toEqual(expect.arrayContaining(['alice', 'bob']));
    const text = await cli.run(['users', 'list']);
    for (const output of [listed.stdout, text.stdout]) expect(output).not.toContain('argon2');
    expect(text.stdout).toContain('USERNAME');
  });

  it('an empty or short password, a taken username or bad arguments exit 2 with one line and create nobody', async () => {
    const cases: Array<[string[], string, string]> = [
      [['users', 'create', '--username', 'carol'], '', 'the password is empty'],
      [['users', 'create', '--username', 'carol'], '\n', 'the password is empty'],
      [['users', 'create', '--username', 'carol'], 'short\n', 'at least 8 characters'],
      [['users', 'create', '--username', 'carol', '--password', ''], '', 'the password is empty'],
      [['users', 'create', '--username', 'alice', '--password', 'long enough pw'], '', 'a user named alice already exists'],
      [['users', 'create', '--username', ' carol', '--password', 'long enough pw'], '', 'surrounding spaces'],
      [['users', 'create', '--password', 'long enough pw'], '', 'missing required option --username'],
      [['users', 'create', '--username', 'carol', '--admin'], '', "Unknown option '--admin'"],
      [['users', 'promote'], '', "unknown subcommand 'users promote'"],
      [['users', 'set-password', '--username', 'nobody', '--password', 'long enough pw'], '', 'no user named nobody'],
      [['users', 'revoke-tokens', '--username', 'nobody'], '', 'no user named nobody'],
      [['users', 'delete'], '', 'missing required option --username'],
    ];
    for (const [argv, stdin, message] of cases) {
      const result = await cli.run(argv, stdin);
      expect(usageErrorLine(result), argv.join(' ')).toContain(message);
      expect(result.stdout).toBe('');
    }
    const users = await cli.withDeps((deps) => deps.stores.userAdmin.list());
    expect(users.map((user) => user.username).sort()).toEqual(['alice', 'bob']);
  });

  it('users create names a refused claim or username before it reads the password, which a prompt would have lost', async () => {
    const cases: Array<[string[], string[]]> = [
      [['users', 'create', 'carol', '--email', 'not-an-email'], ['Email must be an email address']],
      [['users', 'create', 'carol\u200b', '--name', 'Carol'], ['Username must not contain']],
      [
        ['users', 'create', 'carol', '--birthdate', '1852-13-01', '--zoneinfo', 'Nowhere/Land'],
        ['Birthdate must be YYYY or YYYY-MM-DD', 'Zoneinfo must be a time zone'],
      ],
    ];
    for (const [argv, messages] of cases) {
      // No password on stdin: the command stops at the claims, before it would read one.
      const line = usageErrorLine(await cli.run(argv, ''));
      for (const message of messages) expect(line, argv.join(' ')).toContain(message);
      expect(line, argv.join(' ')).not.toContain('password');
    }
    expect(await findUser('carol')).toBeNull();
  });

  it('every users subcommand answers --help with its usage and exit code 0', async () => {
    for (const sub of [[], ['create'], ['list'], ['set-password'], ['delete'], ['revoke-tokens']]) {
      const result = await cli.run(['users', ...sub, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: oauth-service users');
    }
  });

  it('users set-password replaces the password (from stdin); the old one stops working, and so do the sign-ins made with it', async () => {
    const sessionsOfAlice = () =>
      cli.withDeps(async (deps) => {
        const alice = (await deps.stores.users.findByUsername('alice'))!;
        return (await deps.stores.loginSessions.listOfUser(alice.id, new Date(0))).length;
      });
    await cli.withDeps(async (deps) => {
      const user = (await deps.stores.users.findByUsername('alice'))!;
      await startLoginSession(deps, { user, amr: ['pwd'], acr: null, ip: '192.0.2.1', userAgent: 'a browser' }, undefined);
    });
    expect(await sessionsOfAlice()).toBe(1);
    const result = await cli.run(['users', 'set-password', '--username', 'alice', '--json'], 'a brand new passphrase\n');
    expect(result.code).toBe(0);
    expect(await sessionsOfAlice()).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ username: 'alice', password_changed: true });
    expect(await passwordWorks('alice', 'a brand new passphrase')).toBe(true);
    expect(await passwordWorks('alice', 'correct horse battery')).toBe(false);
    expect(usageErrorLine(await cli.run(['users', 'set-password', '--username', 'alice'], 'tiny\n'))).toContain('at least 8 characters');
    expect(await passwordWorks('alice', 'a brand new passphrase')).toBe(true);
  });

  it("users revoke-tokens revokes every live token and grant of that user, and nobody else's", async () => {
    const setup = await cli.withDeps(async (deps) => {
      const dave = await deps.stores.userAdmin.create({ username: 'dave', passwordHash: await deps.passwords.hash('dave password') });
      const erin = await deps.stores.userAdmin.create({ username: 'erin', passwordHash: await deps.passwords.hash('erin password') });
      const first = await createClient(deps);
      const second = await createClient(deps);
      await issueToken(deps, { application: first.application, resourceOwnerId: dave.id });
      await issueToken(deps, { application: second.application, resourceOwnerId: dave.id, withRefreshToken: true });
      const alreadyRevoked = await issueToken(deps, { application: first.application, resourceOwnerId: dave.id });
      await deps.stores.accessTokens.revoke(alreadyRevoked.record.id, deps.now());
      await createCode(deps, { application: first.application, resourceOwnerId: dave.id });
      const erinsToken = await issueToken(deps, { application: first.application, resourceOwnerId: erin.id });
      return { dave, erinsToken: erinsToken.record.token };
    });

    const result = await cli.run(['users', 'revoke-tokens', '--username', 'dave', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ username: 'dave', revoked: { tokens: 2, grants: 1 } });
    const state = await cli.withDeps(async (deps, database) => ({
      liveOfDave: await database.sql.query(
        `SELECT id FROM oauth_access_tokens WHERE resource_owner_id = $1 AND revoked_at IS NULL
         UNION ALL SELECT id FROM oauth_access_grants WHERE resource_owner_id = $1 AND revoked_at IS NULL`,
        [setup.dave.id],
      ),
      erin: (await deps.stores.accessTokens.findByToken(setup.erinsToken))!.revokedAt,
    }));
    expect(state).toEqual({ liveOfDave: [], erin: null });
    expect((await cli.run(['users', 'revoke-tokens', '--username', 'dave'])).stdout).toBe('revoked 0 tokens and 0 grants of dave\n');
  });

  it("users delete revokes the user's tokens and grants first, then deletes the user", async () => {
    const frank = await cli.withDeps(async (deps) => {
      const user = await deps.stores.userAdmin.create({ username: 'frank', passwordHash: await deps.passwords.hash('frank password') });
      const client = await createClient(deps);
      await issueToken(deps, { application: client.application, resourceOwnerId: user.id });
      await createCode(deps, { application: client.application, resourceOwnerId: user.id });
      return user;
    });
    const result = await cli.run(['users', 'delete', '--username', 'frank', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ username: 'frank', deleted: true, revoked: { tokens: 1, grants: 1 } });
    expect(await findUser('frank')).toBeNull();
    const live = await cli.withDeps((_deps, database) =>
      database.sql.query('SELECT id FROM oauth_access_tokens WHERE resource_owner_id = $1 AND revoked_at IS NULL', [frank.id]),
    );
    expect(live).toEqual([]);
    expect(usageErrorLine(await cli.run(['users', 'delete', '--username', 'frank']))).toContain('no user named frank');
  });
});
