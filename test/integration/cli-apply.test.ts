import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ACTOR } from '../../src/oauth/audit/audit-trail.js';
import { startLoginSession } from '../../src/oauth/sessions/login-sessions.js';
import { listApplications } from '../../src/oauth/clients/applications.js';
import { isArgon2idHash } from '../../src/oauth/users/passwords.js';
import { listRegistrationTokens } from '../../src/oauth/clients/registration/registration-tokens.js';
import { applyProvisioning, readProvisioning } from '../../src/oauth/provisioning/provisioning.js';
import { listResources } from '../../src/oauth/resources/resources.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { listUsers } from '../../src/oauth/users/users.js';
import { clientKey, jwksOf } from '../helpers/client-assertions.js';
import { createCliHarness, runCliInProcess, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend, createTestDatabase } from '../helpers/test-database.js';
import { createSelfRegistered } from './applications-self-registered-support.js';

// `oauth-service apply -f FILE` (issue 30): a provisioning file made true in one transaction, as an operator runs it
// from a deployment pipeline: created, updated with the fields named, unchanged when applied again, a dry run and a
// bad file that change nothing, and --prune.

const ALICE_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$8oMUBbGPp6pU8bDFTB9+Z1BSSlaKFTKRsI3mZIWKZ2Y';
const TOKEN = 'an initial access token made with openssl rand, 43 characters';
const IMPORTED_SECRET = 'a client secret of at least thirty-two characters';

const provisioning = {
  applications: [
    { uid: 'billing', name: 'Billing', redirect_uris: ['https://billing.example.com/cb'], scopes: ['read'] },
    { uid: 'spa', name: 'Single page', redirect_uris: ['https://spa.example.com/cb'], confidential: false },
    { uid: 'imported', name: 'Imported', redirect_uris: ['https://imported.example.com/cb'], secret_env: 'IMPORTED_SECRET' },
  ],
  users: [
    { username: 'alice', password_hash: ALICE_HASH, claims: { email: 'alice@example.com', email_verified: true } },
    { username: 'bob', claims: { name: 'Bob', address: { locality: 'Oxford', country: 'GB' } } },
  ],
  resources: [{ uri: 'https://api.example.com', name: 'API', scopes: ['read', 'write'], server_client_id: 'billing' }],
  registration_tokens: [
    { token_sha256: sha256Hex(TOKEN), uses: 5, expires_at: '2036-01-31T00:00:00Z', grant_types: ['client_credentials'], scopes: ['write'] },
  ],
};

describe(`oauth-service apply (${backend})`, { timeout: 180_000 }, () => {
  let cli: CliHarness;
  let folder: string;
  let files = 0;
  const apply = async (file: unknown, ...options: string[]) => {
    const path = join(folder, `provisioning-${++files}.json`);
    writeFileSync(path, JSON.stringify(file));
    return { path, ...(await cli.run(['apply', '-f', path, ...options])) };
  };
  const applied = async (file: unknown, ...options: string[]) => {
    const result = await apply(file, ...options);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result;
  };
  // Everything apply may touch, with every row's updated_at: what "nothing written" is checked against.
  const state = () =>
    cli.withDeps(async (deps) =>
      JSON.parse(
        JSON.stringify({
          applications: await listApplications(deps),
          users: await listUsers(deps),
          resources: await listResources(deps),
          tokens: await listRegistrationTokens(deps),
        }),
      ),
    );

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'oauth-apply-'));
    cli = await createCliHarness({ optionalScopes: ['write'] });
    cli.env.IMPORTED_SECRET = IMPORTED_SECRET;
  });
  afterAll(async () => {
    await cli.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('a dry run of a new file prints what it would create and changes nothing', async () => {
    const before = await state();
    const { stdout } = await applied(provisioning, '--dry-run');
    expect(stdout.split('\n')).toEqual([
      'would create application billing (a client secret would be generated)',
      'would create application spa',
      'would create application imported',
      'would create resource https://api.example.com',
      'would create user alice',
      'would create user bob',
      `would create registration token ${sha256Hex(TOKEN).slice(0, 12)}`,
      expect.stringMatching(/^dry run of \S+, nothing was changed: 7 created, 0 updated, 0 deleted, 0 revoked, 0 unchanged$/),
      '',
    ]);
    expect(await state()).toEqual(before);
  });

  it('creates every declared object in one run; a confidential client without secret_env gets a secret printed once', async () => {
    const { stdout } = await applied(provisioning);
    const secret = /^ {2}client secret \(shown only now\): (\S+)$/m.exec(stdout)?.[1];
    expect(stdout).toMatch(/^created application billing\n {2}client secret \(shown only now\): \S{43}\ncreated application spa\n/);
    expect(stdout).toContain(`applied ${join(folder, 'provisioning-2.json')}: 7 created, 0 updated, 0 deleted, 0 revoked, 0 unchanged\n`);
    const { applications, users, resources, tokens } = await state();
    const byUid = Object.fromEntries(applications.map((application: { uid: string }) => [application.uid, application]));
    expect(byUid.billing).toMatchObject({ name: 'Billing', confidential: true, secret: sha256Hex(secret!), scopes: ['read'] });
    expect(byUid.spa).toMatchObject({ confidential: false, secret: null });
    expect(byUid.imported.secret).toBe(sha256Hex(IMPORTED_SECRET));
    expect(users.map((user: { username: string }) => user.username)).toEqual(['alice', 'bob']);
    expect(users[0]).toMatchObject({ passwordHash: ALICE_HASH, email: 'alice@example.com', emailVerified: true });
    // Without password_hash: a password nobody knows, as an argon2id hash like any other.
    expect(isArgon2idHash(users[1].passwordHash)).toBe(true);
    expect(users[1]).toMatchObject({ name: 'Bob', address: JSON.stringify({ locality: 'Oxford', country: 'GB' }) });
    expect(resources).toEqual([
      expect.objectContaining({ uri: 'https://api.example.com', scopes: ['read', 'write'], serverClientId: 'billing' }),
    ]);
    expect(tokens).toEqual([
      expect.objectContaining({
        token: sha256Hex(TOKEN),
        usesRemaining: 5,
        expiresAt: '2036-01-31T00:00:00.000Z',
        grantTypes: ['client_credentials'],
        scopes: ['write'],
      }),
    ]);
    expect(JSON.stringify(await state())).not.toContain(secret);
  });

  it('applying the same file again prints no change and writes nothing (idempotent)', async () => {
    const before = await state();
    const { stdout } = await applied(provisioning);
    expect(stdout).toMatch(/^applied \S+: 0 created, 0 updated, 0 deleted, 0 revoked, 7 unchanged\n$/);
    expect(await state()).toEqual(before);
    const { stdout: json } = await applied(provisioning, '--json');
    expect(JSON.parse(json)).toMatchObject({ dry_run: false, summary: { created: 0, updated: 0, unchanged: 7 } });
    expect(JSON.parse(json).changes).toContainEqual({ kind: 'application', name: 'billing', action: 'unchanged', fields: [] });
  });

  // Deployments run apply from every replica's start: on PostgreSQL the runs are on connections of their own, and a
  // run that read before the other committed used to fail on the uid the other created ("already exists").
  it('two runs of one file at once: one creates, the other finds it all unchanged', async () => {
    const file = {
      applications: [{ uid: 'concurrent', name: 'Concurrent', redirect_uris: ['https://concurrent.example.com/cb'] }],
      users: [{ username: 'carol' }],
    };
    const runs = await cli.withDeps((deps) => {
      const run = () => applyProvisioning(deps, readProvisioning(file, {}), { dryRun: false, prune: false, by: CLI_ACTOR });
      return Promise.all([run(), run(), run()]);
    });
    const actions = runs.map((changes) => changes.map((change) => change.action).join(' ')).sort();
    expect(actions).toEqual(['created created', 'unchanged unchanged', 'unchanged unchanged']);
    // Gone again, so that the file's own runs below (--prune among them) see only what they declare.
    await cli.withDeps(async (deps) => {
      await deps.stores.applicationAdmin.delete((await deps.stores.applications.findByUid('concurrent'))!.id);
      await deps.stores.userAdmin.delete('carol');
    });
  });

  it('updates only what changed, names the fields, never prints an existing secret, and is idempotent again', async () => {
    const changed = JSON.parse(JSON.stringify(provisioning));
    changed.applications[0].name = 'Billing and invoices';
    changed.applications[0].redirect_uris.push('https://billing.example.com/cb2');
    changed.users[0].claims = { email: 'alice@example.org' };
    changed.resources[0].scopes = ['read'];
    cli.env.IMPORTED_SECRET = `${IMPORTED_SECRET}, rotated`;
    const { stdout } = await applied(changed);
    expect(stdout.split('\n').slice(0, -2)).toEqual([
      'updated application billing: name, redirect_uris',
      'updated application imported: secret',
      'updated resource https://api.example.com: scopes',
      'updated user alice: email, email_verified',
    ]);
    expect(stdout).not.toContain('client secret');
    const { applications, users } = await state();
    expect(applications.find((application: { uid: string }) => application.uid === 'imported').secret).toBe(
      sha256Hex(cli.env.IMPORTED_SECRET),
    );
    expect(users[0]).toMatchObject({ email: 'alice@example.org', emailVerified: false, passwordHash: ALICE_HASH });
    expect((await applied(changed)).stdout).toMatch(/: 0 created, 0 updated, 0 deleted, 0 revoked, 7 unchanged\n$/);
  });

  it("a new password_hash is an admin's password reset: every sign-in of the user ends, audited as user.password_changed", async () => {
    const alice = await cli.withDeps(async (deps) => {
      const user = (await deps.stores.users.findByUsername('alice'))!;
      await startLoginSession(deps, { user, amr: ['pwd'], acr: null, ip: '192.0.2.1', userAgent: 'a leaked password' }, undefined);
      return user;
    });
    const sessions = () => cli.withDeps((deps) => deps.stores.loginSessions.listOfUser(alice.id, new Date(0)));
    expect(await sessions()).toHaveLength(1);
    // Only alice is declared (without --prune nothing else is touched), as the earlier test left her but for these.
    const alicePlus = (passwordHash: string, claims: object) => ({ users: [{ username: 'alice', password_hash: passwordHash, claims }] });
    const rotated = ALICE_HASH.replace('c29tZXNhbHRzb21lc2FsdA', 'b3RoZXJzYWx0b3RoZXJzYWx0');
    const { stdout } = await applied(alicePlus(rotated, { email: 'alice@example.org', name: 'Alice' }));
    expect(stdout.split('\n')[0]).toBe('updated user alice: name, password_hash');
    expect(await sessions()).toEqual([]);
    const audit = JSON.parse((await cli.run(['audit', 'list', '--json'])).stdout) as Array<{
      type: string;
      subject_id: string;
      details: object;
    }>;
    expect(audit.filter((event) => event.subject_id === String(alice.id)).slice(0, 2)).toMatchObject([
      { type: 'user.password_changed', details: { via: 'apply', username: 'alice' } },
      { type: 'user.updated', details: { via: 'apply', fields: ['name'], username: 'alice' } },
    ]);
    await applied(alicePlus(ALICE_HASH, { email: 'alice@example.org' }));
  });

  it('a bad file changes nothing: exit 2 with every problem named by its place in the file', async () => {
    const before = await state();
    const bad = {
      applications: [
        { uid: 'new-one', name: 'Would be valid', redirect_uris: ['https://new.example.com/cb'] },
        {
          uid: 'billing',
          name: 'Billing',
          redirect_uris: ['https://billing.example.com/cb', 'http://billing.example.com/cb', 'no-scheme'],
        },
      ],
      // alice exists: her password hash and her claims are both checked before anything is written.
      users: [{ username: 'alice', password_hash: 'not-a-hash', claims: { email: 'not an email' } }],
      registration_tokens: [{ token_sha256: sha256Hex(TOKEN), expires_at: '2037-01-31T00:00:00Z' }],
    };
    const { stdout, stderr, code } = await apply(bad);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')).toEqual([
      expect.stringMatching(/^oauth-service: \S+ cannot be applied, nothing was changed:$/),
      '  applications[1].redirect_uris[1]: Redirect URI must be an HTTPS/SSL URI.',
      '  applications[1].redirect_uris[2]: Redirect URI must be an absolute URI.',
      '  users[0].password_hash: Password hash must be an argon2id hash ($argon2id$v=19$m=...,t=...,p=...$salt$hash)',
      '  users[0].claims.email: Email must be an email address, such as alice@example.com',
      expect.stringMatching(
        /^ {2}registration_tokens\[0\]: the token \w{12}\.\.\. exists \(id \d+\) with another expires_at, grant_types or scopes, and a token cannot be changed: /,
      ),
      '',
    ]);
    const shapes = await apply(
      {
        applications: [{ uid: 'x', name: 7, colour: 'red' }],
        resources: [{ uri: 'https://api.example.com', name: { text: 'API' }, access_token_lifetime: '900' }],
        groups: [],
        registration_tokens: [{ token_sha256: '0'.repeat(64), expires_at: '2037-02-30T00:00:00Z' }],
      },
      '--json',
    );
    expect(shapes.code).toBe(2);
    expect(JSON.parse(shapes.stdout).problems).toEqual([
      expect.stringMatching(/^groups: unknown field \(the fields are applications, resources, users, registration_tokens\)$/),
      expect.stringMatching(/^applications\[0\]\.colour: unknown field /),
      'applications[0].name: must be a string, not a number',
      // The wrong type said as such (not "a object"), without a range that is not the rule's.
      'resources[0].access_token_lifetime: must be a whole number, not "900"',
      'resources[0].name: must be a string, not an object',
      // Not 2 March: a mistyped day is said, never moved.
      'registration_tokens[0].expires_at: must be a time on the calendar with its offset, such as 2027-01-31T00:00:00Z, not "2037-02-30T00:00:00Z"',
    ]);
    // An entry that is no object, a required field left out, a flag that is no boolean, a list that is no list of strings.
    const kinds = await apply(
      {
        applications: [
          5,
          { name: 'No uid', confidential: 'yes', redirect_uris: 'https://a.example/cb' },
          { uid: 'y', name: 'Y', scopes: ['read', 7, null], dpop_bound_access_tokens: 1 },
        ],
      },
      '--json',
    );
    expect(kinds.code).toBe(2);
    expect(JSON.parse(kinds.stdout).problems).toEqual([
      'applications[0]: must be an object, not a number',
      'applications[1].uid: is required',
      'applications[1].redirect_uris: must be an array of strings, not a string',
      'applications[1].confidential: must be true or false, not a string',
      'applications[2].scopes[1]: must be a string, not a number',
      'applications[2].scopes[2]: must be a string, not null',
      'applications[2].dpop_bound_access_tokens: must be true or false, not a number',
    ]);
    // A jwks nested thousands deep, written by hand (JSON.stringify would overflow here, as it did in apply).
    const deepPath = join(folder, 'provisioning-deep.json');
    const deepKeys = `{"keys":[{"kty":"EC","x":${'['.repeat(6000)}${']'.repeat(6000)}}]}`;
    writeFileSync(deepPath, `{"applications":[{"uid":"deep","name":"Deep","redirect_uris":["https://a.example/cb"],"jwks":${deepKeys}}]}`);
    const deep = await cli.run(['apply', '-f', deepPath, '--json']);
    expect(deep.code).toBe(2);
    expect(JSON.parse(deep.stdout).problems).toEqual([
      expect.stringMatching(/^applications\[0\]\.jwks: The jwks is nested too deeply \(at most 32 levels of objects and arrays\)\.$/),
    ]);
    // A whole number sent as an array nested thousands deep: the problem quoted it whole, overflowing the stack.
    const lifetimePath = join(folder, 'provisioning-deep-lifetime.json');
    const lifetime = `${'['.repeat(6000)}${']'.repeat(6000)}`;
    writeFileSync(
      lifetimePath,
      `{"resources":[{"uri":"https://deep.example/","name":"Deep","scopes":["read"],"access_token_lifetime":${lifetime}}]}`,
    );
    const deepLifetime = await cli.run(['apply', '-f', lifetimePath, '--json']);
    expect(deepLifetime.code).toBe(2);
    expect(JSON.parse(deepLifetime.stdout).problems).toEqual([
      `resources[0].access_token_lifetime: must be a whole number, not ${'['.repeat(34)}${']'.repeat(34)}`,
    ]);
    expect(await state()).toEqual(before);
  });

  it('a resource naming an application of the file that cannot be created points at it, not "there is none"', async () => {
    const before = await state();
    const { stdout, code } = await apply(
      {
        applications: [{ uid: 'refused-server', name: 'Refused', redirect_uris: ['https://refused.example/cb'], scopes: ['unknown'] }],
        resources: [
          { uri: 'https://refused-api.example.com', name: 'API', scopes: ['read'], server_client_id: 'refused-server' },
          { uri: 'https://other-api.example.com', name: 'API', scopes: ['read'], server_client_id: 'undeclared' },
        ],
      },
      '--json',
    );
    expect(code).toBe(2);
    expect(JSON.parse(stdout).problems).toEqual([
      "applications[0].scopes: Scopes doesn't match those configured on the server.",
      'resources[0].server_client_id: names the application "refused-server" of this file, which cannot be created (applications[0])',
      'resources[1].server_client_id: Server client ID must be the client_id (UID) of a registered application: there is none with "undeclared"',
    ]);
    expect(await state()).toEqual(before);
  });

  it('a dry run does not migrate: a database this version would migrate is refused, and stays as it was', async () => {
    const unmigrated = process.env.DATABASE_URL ? await createTestDatabase({ migrated: false }) : null;
    const dataDir = mkdtempSync(join(tmpdir(), 'oauth-apply-unmigrated-'));
    try {
      const env = { ...cli.env, DATABASE_URL: unmigrated?.url ?? undefined, DATA_DIR: dataDir };
      const dryRun = () => runCliInProcess(['apply', '-f', '-', '--dry-run'], env, JSON.stringify(provisioning));
      const refusal =
        /^oauth-service: the database has \d+ migration\(s\) this version would apply \(\S+, \.\.\.\): a dry run changes nothing, so it does not migrate; run 'oauth-service migrate' first$/;
      expect(usageErrorLine(await dryRun())).toMatch(refusal);
      // Refused again: the first run migrated nothing.
      expect(usageErrorLine(await dryRun())).toMatch(refusal);
    } finally {
      await unmigrated?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a file that cannot be read or is no JSON is a usage error (exit 2)', async () => {
    expect(usageErrorLine(await cli.run(['apply', '-f', join(folder, 'missing.json')]))).toMatch(
      /^oauth-service: cannot read \S+missing\.json: ENOENT/,
    );
    expect(usageErrorLine(await cli.run(['apply', '-f', '-'], '{"applications": ['))).toMatch(/^oauth-service: - is not valid JSON: /);
    // Where, as an editor shows it (as config check says it); a byte order mark is no part of the text.
    expect(usageErrorLine(await cli.run(['apply', '-f', '-'], '{\n  "users": [],\n}'))).toBe(
      'oauth-service: - is not valid JSON: line 3, column 1: Expected double-quoted property name',
    );
    expect((await cli.run(['apply', '-f', '-', '--dry-run'], '\uFEFF{"users": []}')).code).toBe(0);
    expect(usageErrorLine(await cli.run(['apply']))).toBe('oauth-service: missing required option --file');
    // Saved as Latin-1 ("café"): refused, not decoded into U+FFFD; a lone surrogate would be stored as U+FFFD.
    const latin1 = join(folder, 'latin1.json');
    writeFileSync(latin1, Buffer.concat([Buffer.from('{"users": [{"username": "caf'), Buffer.from([0xe9]), Buffer.from('"}]}')]));
    expect(usageErrorLine(await cli.run(['apply', '-f', latin1]))).toBe(
      `oauth-service: ${latin1} is not UTF-8 text: save it as UTF-8 (RFC 8259 section 8.1)`,
    );
    expect(usageErrorLine(await cli.run(['apply', '-f', '-'], '{"users": [{"username": "sur\\ud800x"}]}'))).toBe(
      'oauth-service: - holds the text "sur\\ud800x", which must not hold a NUL character or an unpaired UTF-16 surrogate',
    );
    // A member named twice (a merge gone wrong): JSON.parse would keep the last, and --prune delete what the first named.
    const before = await state();
    const twice = await cli.run(['apply', '-f', '-', '--prune'], '{"users": [{"username": "alice"}], "users": []}');
    expect(usageErrorLine(twice)).toBe('oauth-service: - names a member twice in one object, at $.users: the first would be lost');
    expect(await state()).toEqual(before);
  });

  it('with --json, a file that cannot be read or is no JSON is {"valid": false, "problems": [...]} on stdout (exit 2)', async () => {
    const missing = join(folder, 'missing.json');
    const unread = await cli.run(['apply', '-f', missing, '--json']);
    expect([unread.code, unread.stderr]).toEqual([2, '']);
    expect(JSON.parse(unread.stdout)).toEqual({
      file: missing,
      valid: false,
      problems: [expect.stringMatching(/^cannot read \S+missing\.json: ENOENT/)],
    });
    const yaml = join(folder, 'provisioning.yaml');
    writeFileSync(yaml, 'applications:\n  - uid: billing\n');
    for (const [file, stdin] of [
      [yaml, ''],
      ['-', '{"applications": ['],
    ] as const) {
      const notJson = await cli.run(['apply', '-f', file, '--json'], stdin);
      expect([notJson.code, notJson.stderr]).toEqual([2, '']);
      expect(JSON.parse(notJson.stdout)).toEqual({ file, valid: false, problems: [expect.stringMatching(/ is not valid JSON: /)] });
    }
  });

  it('--prune deletes the undeclared applications (not self-registered ones), users and resources, and revokes tokens', async () => {
    const selfRegistered = await cli.withDeps((deps) => createSelfRegistered(deps));
    const kept = { applications: [provisioning.applications[0]], users: [provisioning.users[1]], registration_tokens: [] };
    const dryRun = await applied(kept, '--prune', '--dry-run');
    expect(dryRun.stdout).toContain('would delete application spa\n');
    const { stdout } = await applied(kept, '--prune');
    expect(stdout.split('\n').slice(0, -2).sort()).toEqual([
      'deleted application imported',
      'deleted application spa',
      'deleted user alice',
      `revoked registration token ${sha256Hex(TOKEN).slice(0, 12)}`,
      'updated application billing: name, redirect_uris',
    ]);
    const { applications, users, resources, tokens } = await state();
    expect(applications.map((application: { uid: string }) => application.uid).sort()).toEqual(['billing', selfRegistered.uid].sort());
    expect(users.map((user: { username: string }) => user.username)).toEqual(['bob']);
    // resources is left out of the file: not pruned.
    expect(resources).toHaveLength(1);
    expect(tokens[0].revokedAt).not.toBeNull();
    expect((await applied(kept, '--prune')).stdout).toMatch(/: 0 created, 0 updated, 0 deleted, 0 revoked, 2 unchanged\n$/);
    // The revoked token declared again: the file would claim a usable token that cannot be; nothing is changed.
    const again = await apply({ registration_tokens: provisioning.registration_tokens });
    expect(again.code).toBe(2);
    expect(again.stderr.split('\n')[1]).toMatch(
      /^ {2}registration_tokens\[0\]: the token \w{12}\.\.\. was revoked \(id \d+\) and cannot be used again: declare a new token, or leave this one out of the file$/,
    );
  });
  it('declares how a client proves itself and which grants it uses (issue 34): jwks, jwks_uri, token_endpoint_auth_method, grant_types', async () => {
    const [key, rotated] = [await clientKey('ES256'), await clientKey('ES256')];
    const machine = {
      uid: 'machine',
      name: 'Machine',
      redirect_uris: ['https://machine.example.com/cb'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: jwksOf(key),
      grant_types: ['client_credentials'],
    };
    const remote = { ...machine, uid: 'remote-keys', name: 'Remote keys', jwks: null, jwks_uri: 'https://keys.example.com/jwks.json' };
    const { stdout } = await applied({ applications: [machine, remote] });
    // As `apps create` does, a client that proves itself with its key gets no secret.
    expect(stdout).toMatch(/^created application machine\ncreated application remote-keys\n/);
    const stored = async () => (await state()).applications.filter((a: { uid: string }) => a.uid === 'machine' || a.uid === 'remote-keys');
    expect(await stored()).toEqual([
      expect.objectContaining({
        uid: 'machine',
        tokenEndpointAuthMethod: 'private_key_jwt',
        grantTypes: ['client_credentials'],
        secret: null,
      }),
      expect.objectContaining({ uid: 'remote-keys', jwks: null, jwksUri: 'https://keys.example.com/jwks.json', secret: null }),
    ]);
    expect(JSON.parse((await stored())[0].jwks).keys[0]).toMatchObject({ kid: key.kid, kty: 'EC', crv: 'P-256' });
    expect((await applied({ applications: [machine, remote] })).stdout).toMatch(
      /: 0 created, 0 updated, 0 deleted, 0 revoked, 2 unchanged\n$/,
    );
    const { stdout: changed } = await applied({ applications: [{ ...machine, jwks: jwksOf(key, rotated) }, remote] });
    expect(changed.split('\n')[0]).toBe('updated application machine: jwks');
    const notASet = await apply({ applications: [{ ...machine, jwks: [key.publicJwk] }] });
    expect([notASet.code, notASet.stderr.split('\n')[1]]).toEqual([2, '  applications[0].jwks: must be a JWK Set, an object with keys']);
    const keyless = await apply({ applications: [{ ...remote, jwks_uri: null }] });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr.split('\n')[1]).toMatch(/^ {2}applications\[0\]\.\w+: .*(jwks|key)/i);
    // A secret cannot be declared for it; set back to a secret method, it gets a generated one, printed once.
    const withSecret = await apply({ applications: [{ ...machine, uid: 'machine-secret', secret_env: 'IMPORTED_SECRET' }] });
    expect([withSecret.code, withSecret.stderr.split('\n')[1]]).toEqual([
      2,
      '  applications[0].secret_env: Secret cannot be set for a private_key_jwt client: it authenticates with its key',
    ]);
    const toSecret = await applied({
      applications: [{ ...machine, token_endpoint_auth_method: 'client_secret_basic', jwks: null }, remote],
    });
    expect(toSecret.stdout).toMatch(/^updated application machine: .*\n {2}client secret \(shown only now\): \S{43}\n/);
  });

  // Last: its prune takes every application the file leaves out.
  it('--prune of an application that serves a resource says, in the dry run too, and audits the resource it unlinks (CLI audit)', async () => {
    const server = { uid: 'api-server', name: 'API server', redirect_uris: ['https://server.example.com/cb'] };
    const resource = { uri: 'https://served.example.com', name: 'Served', scopes: ['read'], server_client_id: 'api-server' };
    await applied({ applications: [server], resources: [resource] });
    // A file that declares the resource with its server client, but not the client: --prune would end unlike the file.
    const before = await state();
    const contradicted = await apply({ applications: [], resources: [resource] }, '--prune');
    expect(contradicted.code).toBe(2);
    expect(contradicted.stderr).toContain(
      '  the resource https://served.example.com names api-server as its server_client_id, which --prune would delete as undeclared: declare api-server under applications, or change the resource\n',
    );
    expect(await state()).toEqual(before);
    const unlinked = 'resource https://served.example.com: server_client_id\n';
    expect((await applied({ applications: [] }, '--prune', '--dry-run')).stdout).toContain(`would update ${unlinked}`);
    expect((await applied({ applications: [] }, '--prune')).stdout).toContain(`updated ${unlinked}`);
    const audit = JSON.parse((await cli.run(['audit', 'list', '--json'])).stdout) as Array<{ type: string; subject_id: string }>;
    expect(audit.filter((event) => event.type === 'resource.updated' && event.subject_id === resource.uri)).toHaveLength(1);
  });
});
