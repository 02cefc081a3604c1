import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';
import { recordAuditEvent } from '../../src/oauth/audit/audit-trail.js';
import { signInEvent } from '../../src/oauth/audit/sign-in-events.js';

// Issue 32 item 7 from the CLI: each admin command records its change with actor `cli` (no address), in the same
// transaction; `audit list` reads the trail back, filtered, as a table or as JSON.

interface EventJson {
  type: string;
  actor: string;
  ip: string | null;
  subject_type: string | null;
  subject_id: string | null;
  client_id: string | null;
  user_id: number | null;
  details: Record<string, unknown> | null;
}

describe(`oauth-service audit list, and the CLI's events (${backend})`, { timeout: 60_000 }, () => {
  let cli: CliHarness;
  let clientId: string;
  beforeAll(async () => {
    cli = await createCliHarness();
    const app = await cli.run(['apps', 'create', '--name', 'Cli App', '--redirect-uri', 'https://c.example.com/cb', '--json']);
    clientId = (JSON.parse(app.stdout) as { uid: string }).uid;
    await cli.run(['apps', 'update', clientId, '--name', 'Cli App 2']);
    await cli.run(['users', 'create', '--username', 'carol', '--password', 'a long password']);
    await cli.run(['users', 'disable', 'carol']);
    await cli.run(['registration-tokens', 'create', '--uses', '1']);
  });
  afterAll(() => cli.close());

  const list = async (...args: string[]) => {
    const result = await cli.run(['audit', 'list', ...args, '--json']);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as EventJson[];
  };

  it('every admin command recorded its event, newest first, by `cli` without an address', async () => {
    const events = await list();
    expect(events.map((event) => event.type)).toEqual([
      'registration_token.created',
      'user.disabled',
      'user.created',
      'client.updated',
      'client.created',
    ]);
    expect(events.every((event) => event.actor === 'cli' && event.ip === null)).toBe(true);
    expect(events[1]).toMatchObject({ subject_type: 'user', details: { username: 'carol', tokens: 0, grants: 0 } });
    // What an update changed, named as apply names it.
    expect(events[3]).toMatchObject({ type: 'client.updated', details: { fields: ['name'] } });
  });

  it('an update that changes nothing records nothing', async () => {
    const before = (await list()).length;
    expect((await cli.run(['apps', 'update', clientId, '--name', 'Cli App 2'])).code).toBe(0);
    expect((await list()).length).toBe(before);
  });

  it('filters by client, by user name, by type, by time and by count', async () => {
    expect((await list('--client', clientId)).map((event) => event.type)).toEqual(['client.updated', 'client.created']);
    expect((await list('--user', 'carol')).map((event) => event.type)).toEqual(['user.disabled', 'user.created']);
    // An id no user ever had is an error, as a name is; a deleted user's id keeps its events (CLI audit).
    expect(usageErrorLine(await cli.run(['audit', 'list', '--user', '424242']))).toContain("no user with id or name '424242'");
    const erin = JSON.parse(
      (await cli.run(['users', 'create', '--username', 'erin', '--password', 'a long password', '--json'])).stdout,
    ) as { id: number };
    await cli.run(['users', 'delete', 'erin']);
    expect((await list('--user', String(erin.id))).map((event) => event.type)).toEqual(['user.deleted', 'user.created']);
    expect(await list('--type', 'client.created')).toMatchObject([{ client_id: clientId, subject_id: clientId }]);
    expect(await list('--since', '2999-01-01')).toEqual([]);
    expect(await list('--limit', '2')).toHaveLength(2);
  });

  it('prints a table without --json', async () => {
    const result = await cli.run(['audit', 'list', '--type', 'user.created']);
    expect(result.stdout).toMatch(/occurred_at\s+type\s+outcome\s+actor\s+subject\s+ip/);
    expect(result.stdout).toMatch(/user\.created\s+success\s+cli\s+user:\d+/);
  });

  it("the table shows a stranger's control characters escaped: a user name typed at /login cannot rewrite or add rows", async () => {
    const forged = 'admin\r2026-12-02T10:16:40.000Z  user.sign_in.succeeded\n2026-12-02T10:16:39.000Z  user.password_changed\u001b[2J';
    await cli.withDeps((deps) => recordAuditEvent(deps.stores, new Date(), signInEvent({ outcome: 'failed' }, forged, '10.0.0.5')));
    const table = await cli.stdout(['audit', 'list', '--type', 'user.sign_in.failed']);
    expect(table.trimEnd().split('\n')).toHaveLength(2);
    expect(table).toContain(
      'user:admin\\u000d2026-12-02T10:16:40.000Z  user.sign_in.succeeded\\u000a2026-12-02T10:16:39.000Z  user.password_changed\\u001b[2J',
    );
    expect(table.includes('\r') || table.includes('\u001b')).toBe(false);
  });

  it('apply -f records each change it makes (marked via apply), none for a dry run or what it leaves unchanged', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'cli-audit-apply-'));
    try {
      const path = join(folder, 'provisioning.json');
      const declare = async (file: object, ...options: string[]) => {
        writeFileSync(path, JSON.stringify(file));
        expect((await cli.run(['apply', '-f', path, ...options])).code).toBe(0);
        return (await list('--limit', '500')).filter((event) => event.details?.via === 'apply');
      };
      const file = {
        applications: [{ uid: 'provisioned', name: 'Provisioned', redirect_uris: ['https://p.example.com/cb'] }],
        users: [{ username: 'dave' }],
      };
      expect(await declare(file, '--dry-run')).toEqual([]);
      const created = await declare(file);
      expect(created.map((event) => event.type)).toEqual(['user.created', 'client.created']);
      expect(created.every((event) => event.actor === 'cli')).toBe(true);
      expect(created[0]).toMatchObject({ subject_type: 'user', user_id: expect.any(Number), details: { username: 'dave' } });
      expect(created[1]).toMatchObject({ subject_type: 'client', subject_id: 'provisioned', client_id: 'provisioned' });
      expect(await declare(file)).toHaveLength(2);
      const renamed = await declare({ ...file, applications: [{ ...file.applications[0], name: 'Renamed' }] });
      expect(renamed[0]).toMatchObject({ type: 'client.updated', details: { via: 'apply', fields: ['name'] } });
      expect(renamed).toHaveLength(3);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('bad filters are one-line usage errors naming each problem (exit code 2)', async () => {
    expect(usageErrorLine(await cli.run(['audit', 'list', '--type', 'nope']))).toContain("unknown event type 'nope'");
    const line = usageErrorLine(await cli.run(['audit', 'list', '--since', 'soon', '--limit', '501', '--user', 'nobody']));
    expect(line).toContain('--since must be an ISO 8601');
    expect(line).toContain('--limit must be a whole number from 1 to 500');
    expect(line).toContain("no user named 'nobody'");
    // A negative number is the option's value, refused by the option's own rule (not parseArgs' "ambiguous").
    expect(usageErrorLine(await cli.run(['audit', 'list', '--limit', '-3']))).toBe(
      "oauth-service: --limit must be a whole number from 1 to 500, not '-3'",
    );
    expect((await cli.run(['audit', '--help'])).stdout).toContain('list [--user U] [--client C]');
  });
});
