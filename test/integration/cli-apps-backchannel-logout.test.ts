import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// OpenID Connect Back-Channel Logout 1.0 through the CLI: `apps create/update --backchannel-logout-uri U
// --[no-]backchannel-logout-session-required`, `apps show`, and `tokens cleanup` deleting the deliveries made or given
// up longer ago than openid.backchannelLogout.keepDays while keeping pending ones.

const REDIRECT = ['--redirect-uri', 'https://rp.example/cb'];

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service apps --backchannel-logout-uri and tokens cleanup of logout deliveries (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  const create = (...options: string[]) => cli.run(['apps', 'create', '--name', 'RP', ...REDIRECT, ...options]);

  it('apps create and update set, show and clear the back-channel logout URI and the sid requirement', async () => {
    const created = await create(
      '--backchannel-logout-uri',
      'https://rp.example/logout',
      '--backchannel-logout-session-required',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const { uid } = JSON.parse(created.stdout);
    expect(JSON.parse(created.stdout)).toMatchObject({
      backchannel_logout_uri: 'https://rp.example/logout',
      backchannel_logout_session_required: true,
    });
    const shown = await cli.run(['apps', 'show', uid]);
    expect(shown.stdout).toContain('  logout tokens:  POSTed to https://rp.example/logout, each naming the session (sid)\n');

    const updated = await cli.run(['apps', 'update', uid, '--no-backchannel-logout-session-required', '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      backchannel_logout_uri: 'https://rp.example/logout',
      backchannel_logout_session_required: false,
    });
    const cleared = await cli.run(['apps', 'update', uid, '--backchannel-logout-uri', '', '--json']);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ backchannel_logout_uri: null });
    expect((await cli.run(['apps', 'show', uid])).stdout).toContain('  logout tokens:  (none: no back-channel logout URI)\n');
  });

  it('refuses a URI with a fragment, and contradicting flags, with one line and exit code 2', async () => {
    const fragment = await create('--backchannel-logout-uri', 'https://rp.example/logout#x');
    expect(usageErrorLine(fragment)).toBe('oauth-service: Back-channel logout URI cannot contain a fragment.');
    const both = await create('--backchannel-logout-session-required', '--no-backchannel-logout-session-required');
    expect(usageErrorLine(both)).toBe(
      'oauth-service: --backchannel-logout-session-required and --no-backchannel-logout-session-required contradict each other',
    );
  });

  it('apply -f: backchannel_logout_uri and backchannel_logout_session_required are fields of an application, as apps --json prints them', async () => {
    const path = join(cli.env.DATA_DIR!, 'provisioning.json');
    const apply = async (application: Record<string, unknown>) => {
      writeFileSync(
        path,
        JSON.stringify({ applications: [{ uid: 'bcl-rp', name: 'RP', redirect_uris: ['https://rp.example/cb'], ...application }] }),
      );
      return cli.run(['apply', '-f', path]);
    };
    const declared = { backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: true };
    expect((await apply(declared)).code).toBe(0);
    const stored = () => cli.withDeps((deps) => deps.stores.applications.findByUid('bcl-rp'));
    expect(await stored()).toMatchObject({ backchannelLogoutUri: 'https://rp.example/logout', backchannelLogoutSessionRequired: true });
    expect((await apply(declared)).stdout).toContain('unchanged');
    const bad = await apply({ backchannel_logout_uri: 'https://rp.example/logout#x' });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('applications[0].backchannel_logout_uri: Back-channel logout URI cannot contain a fragment.');
    // Left out, they are what create gives: none.
    expect((await apply({})).code).toBe(0);
    expect(await stored()).toMatchObject({ backchannelLogoutUri: null, backchannelLogoutSessionRequired: false });
  });

  it('tokens cleanup deletes deliveries delivered or given up more than keepDays ago, and keeps pending and recent ones', async () => {
    const uid = JSON.parse((await create('--json')).stdout).uid as string;
    await cli.withDeps(async (deps, database) => {
      const application = (await deps.stores.applications.findByUid(uid))!;
      const longAgo = new Date(Date.now() - 8 * 86_400_000);
      const deliveries = deps.stores.logoutDeliveries;
      await deliveries.add(
        ['old delivered', 'old failed', 'old pending', 'recent delivered'].map((sessionId) => ({
          applicationId: application.id,
          subject: 'someone',
          sessionId,
        })),
        longAgo,
      );
      const rows = await database.sql.query<{ id: number; session_id: string }>('SELECT id, session_id FROM oauth_logout_deliveries');
      const id = (sessionId: string) => Number(rows.find((row) => row.session_id === sessionId)!.id);
      await deliveries.settle(id('old delivered'), { outcome: 'delivered', at: longAgo });
      await deliveries.settle(id('old failed'), { outcome: 'failed', at: longAgo, error: 'the client answered status 400' });
      await deliveries.settle(id('recent delivered'), { outcome: 'delivered', at: new Date() });
    });
    const dryRun = await cli.run(['tokens', 'cleanup', '--dry-run', '--json']);
    expect(JSON.parse(dryRun.stdout)).toMatchObject({ deleted: { logout_deliveries: 2 }, dry_run: true });
    const run = await cli.run(['tokens', 'cleanup']);
    expect(run.stdout).toMatch(/ {2}logout deliveries: +2\n/);
    const left = await cli.withDeps((_deps, database) =>
      database.sql.query<{ session_id: string }>('SELECT session_id FROM oauth_logout_deliveries ORDER BY session_id'),
    );
    expect(left.map((row) => row.session_id)).toEqual(['old pending', 'recent delivered']);
  });
});
