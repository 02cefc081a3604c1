import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { startLoginSession } from '../../src/oauth/sessions/login-sessions.js';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { storedPasskey } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';

// Issue 35 items 3 and 5: the CLI sets a user's second-factor policy, resets a lost second factor and removes a user's
// passkeys, as the admin's Users page does, audited as the CLI.

describe(`oauth-service users set-mfa, reset-second-factor and reset-passkeys (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  let userId: number;
  beforeAll(async () => {
    cli = await createCliHarness();
    userId = await cli.withDeps(async (deps) => {
      const user = await deps.stores.userAdmin.create({ username: 'phoneless', passwordHash: 'x' });
      await deps.stores.secondFactors.saveTotp(user.id, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', ['0'.repeat(64)], new Date());
      return user.id;
    });
  });
  afterAll(() => cli.close());

  it('set-mfa stores the policy and refuses one that does not exist', async () => {
    const set = await cli.run(['users', 'set-mfa', 'phoneless', '--mfa', 'required', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ username: 'phoneless', mfa: 'required' });
    expect(await cli.withDeps(async (deps) => (await deps.stores.users.findById(userId))!.mfa)).toBe('required');
    const wrong = await cli.run(['users', 'set-mfa', 'phoneless', '--mfa', 'always']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--mfa must be one of off, optional, required');
  });

  it('reset-second-factor removes the authenticator and the recovery codes, once', async () => {
    const reset = await cli.run(['users', 'reset-second-factor', 'phoneless']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toBe('removed the second factor of phoneless\n');
    expect(await cli.withDeps((deps) => deps.stores.secondFactors.hasTotp(userId))).toBe(false);
    expect((await cli.run(['users', 'reset-second-factor', 'phoneless'])).stdout).toBe('phoneless has no second factor\n');
    const events = await cli.withDeps((deps) => listAuditEvents(deps, { userId, limit: 10 }));
    expect(events.map(({ type, actor }) => [type, actor])).toEqual([
      ['user.second_factor.reset', 'cli'],
      ['user.updated', 'cli'],
    ]);
  });

  it("reset-passkeys removes all the user's passkeys and ends the user's sign-ins, audited as the CLI; again, there is none; an unknown user is a usage error", async () => {
    const sessions = () => cli.withDeps(async (deps) => (await deps.stores.loginSessions.listOfUser(userId, new Date(0))).length);
    await cli.withDeps(async (deps) => {
      await deps.stores.passkeys.create(storedPasskey(userId, 'cred-1', 'YubiKey'), new Date('2026-01-01T00:00:00Z'));
      await deps.stores.passkeys.create(storedPasskey(userId, 'cred-2', 'Laptop'), new Date('2026-02-01T00:00:00Z'));
      // A sign-in made with the lost key: sessions do not record which key made them.
      const user = (await deps.stores.users.findById(userId))!;
      await startLoginSession(deps, { user, amr: ['hwk', 'user'], acr: 'phr', ip: '192.0.2.1', userAgent: 'a thief' }, undefined);
    });
    expect(await sessions()).toBe(1);
    const reset = await cli.run(['users', 'reset-passkeys', 'phoneless', '--json']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(await sessions()).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({
      username: 'phoneless',
      passkeys_removed: [{ name: 'YubiKey' }, { name: 'Laptop' }],
    });
    expect(await cli.withDeps((deps) => deps.stores.passkeys.listOfUser(userId))).toEqual([]);
    const events = await cli.withDeps((deps) => listAuditEvents(deps, { userId, type: 'user.passkeys.reset', limit: 10 }));
    expect(events).toEqual([expect.objectContaining({ actor: 'cli', details: expect.objectContaining({ removed: 2 }) })]);
    expect((await cli.run(['users', 'reset-passkeys', 'phoneless'])).stdout).toBe('phoneless has no passkey\n');
    const unknown = await cli.run(['users', 'reset-passkeys', 'nobody']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no user named nobody');
  });
});
