import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// Issue 35 item 3: the CLI sets a user's second-factor policy and resets a lost second factor, as the admin's Users
// page does, audited as the CLI.

describe(`oauth-service users set-mfa and reset-second-factor (${backend})`, { timeout: 120_000 }, () => {
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
});
