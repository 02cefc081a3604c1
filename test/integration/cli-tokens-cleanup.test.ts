import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import { generateSecret } from '../../src/oauth/secrets.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import type { CleanupKind } from '../../src/oauth/cleanup/cleanup-policy.js';
import { cleanupStaleRecords } from '../../src/storage/cleanup.js';
import type { Database } from '../../src/storage/database.js';
import { timestamp } from '../../src/storage/rows.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { createClient, createCode } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';

// Reference section 18 with the margins of src/storage/cleanup.ts: refresh grace 300 s (so revoked rows are
// kept 300 s), refresh tokens live a day, codes 600 s (used or expired codes are kept 600 s more).
const CONFIG = { accessTokenExpiresIn: 7200, authorizationCodeExpiresIn: 600, refreshTokens: { expiresIn: 86_400, graceSeconds: 300 } };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ago = (ms: number) => new Date(Date.now() - ms);

interface TokenRow {
  createdAt: Date;
  expiresIn?: number | null;
  refresh?: boolean;
  family?: string;
  revokedAt?: Date;
  /** Rotated: refreshed_at and revoked_at both set, as rotation does. */
  rotatedAt?: Date;
}

async function insertToken(deps: OAuthDeps, database: Database, application: ApplicationRecord, row: TokenRow): Promise<number> {
  const { id } = await deps.stores.accessTokens.create({
    applicationId: application.id,
    resourceOwnerId: 1,
    token: generateSecret(),
    refreshToken: row.refresh || row.family ? generateSecret() : null,
    expiresIn: row.expiresIn === undefined ? 7200 : row.expiresIn,
    scopes: ['read'],
    createdAt: row.createdAt,
    accessGrantId: null,
    refreshFamily: row.family ?? null,
  });
  if (row.rotatedAt)
    await database.sql.query('UPDATE oauth_access_tokens SET refreshed_at = $2, revoked_at = $2 WHERE id = $1', [
      id,
      timestamp(row.rotatedAt),
    ]);
  if (row.revokedAt) await deps.stores.accessTokens.revoke(id, row.revokedAt);
  return id;
}

/** Every kind of row, each labelled with what cleanup must do to it. */
async function seed(deps: OAuthDeps, database: Database) {
  const { application } = await createClient(deps);
  const keep: Record<string, number> = {};
  const stale: Record<string, number> = {};
  const family = () => generateSecret();

  keep.live = await insertToken(deps, database, application, { createdAt: ago(MINUTE) });
  keep.neverExpires = await insertToken(deps, database, application, { createdAt: ago(1000 * HOUR), expiresIn: null });
  keep.refreshStillUsable = await insertToken(deps, database, application, { createdAt: ago(3 * HOUR), refresh: true });
  keep.revokedWithinMargin = await insertToken(deps, database, application, { createdAt: ago(HOUR), revokedAt: ago(10_000) });
  stale.expired = await insertToken(deps, database, application, { createdAt: ago(3 * HOUR) });
  stale.refreshExpired = await insertToken(deps, database, application, { createdAt: ago(48 * HOUR), refresh: true });
  stale.revoked = await insertToken(deps, database, application, { createdAt: ago(HOUR), revokedAt: ago(10 * MINUTE) });

  // A rotated token stays while its family lives: presenting it again must revoke the live successor.
  const living = family();
  keep.rotatedOfLiveFamily = await insertToken(deps, database, application, {
    createdAt: ago(2 * HOUR),
    family: living,
    rotatedAt: ago(HOUR),
  });
  keep.liveSuccessor = await insertToken(deps, database, application, { createdAt: ago(HOUR), family: living });
  // A wholly revoked family has nothing left to protect.
  const dead = family();
  stale.rotatedOfRevokedFamily = await insertToken(deps, database, application, {
    createdAt: ago(2 * HOUR),
    family: dead,
    rotatedAt: ago(HOUR),
  });
  stale.revokedSuccessor = await insertToken(deps, database, application, { createdAt: ago(HOUR), family: dead, revokedAt: ago(HOUR) });
  // A family whose last member expired for good: that member goes as refresh-expired, then its predecessor.
  const expired = family();
  stale.rotatedOfExpiredFamily = await insertToken(deps, database, application, {
    createdAt: ago(50 * HOUR),
    family: expired,
    rotatedAt: ago(49 * HOUR),
  });
  stale.expiredSuccessor = await insertToken(deps, database, application, { createdAt: ago(49 * HOUR), family: expired });

  const grant = async (createdAt: Date, usedAt?: Date) => {
    await createCode(deps, { application, resourceOwnerId: 1, createdAt });
    const rows = await database.sql.query<{ id: number }>('SELECT id FROM oauth_access_grants ORDER BY id DESC LIMIT 1');
    const id = Number(rows[0]!.id);
    if (usedAt) await deps.stores.accessGrants.consume(id, usedAt);
    return id;
  };
  keep.liveCode = await grant(ago(MINUTE));
  // A used code is kept authorizationCodeExpiresIn after its use, so its replay still revokes its tokens.
  keep.recentlyUsedCode = await grant(ago(2 * MINUTE), ago(MINUTE));
  keep.recentlyExpiredCode = await grant(ago(15 * MINUTE));
  stale.usedCode = await grant(ago(25 * MINUTE), ago(20 * MINUTE));
  stale.expiredCode = await grant(ago(30 * MINUTE));
  return { keep, stale };
}

const NOTHING_DELETED: Record<CleanupKind, number> = {
  expired_tokens: 0,
  expired_refresh_tokens: 0,
  revoked_tokens: 0,
  revoked_grants: 0,
  expired_grants: 0,
  unused_clients: 0,
  logout_deliveries: 0,
  audit_events: 0,
  expired_device_codes: 0,
  expired_login_sessions: 0,
  expired_pushed_requests: 0,
};
const EXPECTED = {
  ...NOTHING_DELETED,
  expired_tokens: 1,
  expired_refresh_tokens: 2,
  revoked_tokens: 4,
  revoked_grants: 1,
  expired_grants: 1,
};

describe(`oauth-service tokens cleanup (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const allIds = () =>
    cli.withDeps(async (_deps, database) => {
      const ids = async (table: string) =>
        (await database.sql.query<{ id: number }>(`SELECT id FROM ${table}`)).map((row) => Number(row.id)).sort((a, b) => a - b);
      return { tokens: await ids('oauth_access_tokens'), grants: await ids('oauth_access_grants') };
    });

  beforeAll(async () => {
    cli = await createCliHarness(CONFIG);
  });
  afterAll(() => cli.close());

  it('deletes exactly the stale tokens and codes, kind by kind, in batches of --batch-size, and keeps the rest', async () => {
    const { keep, stale } = await cli.withDeps(seed);
    const before = await allIds();

    const dryRun = await cli.run(['tokens', 'cleanup', '--dry-run', '--json']);
    expect(dryRun.code).toBe(0);
    // Kept on purpose: the token revoked 10 s ago (margin 300 s), the rotated token of the live family, the code
    // used a minute ago and the one that expired 5 minutes ago (codes are kept 600 s).
    expect(JSON.parse(dryRun.stdout)).toEqual({
      deleted: EXPECTED,
      total: 9,
      dry_run: true,
      kept: { revoked_margin_seconds: 300, revoked_within_margin: 1, revoked_for_reuse_detection: 1, codes_for_replay_detection: 2 },
    });
    expect(await allIds()).toEqual(before);

    const text = await cli.run(['tokens', 'cleanup', '--dry-run']);
    expect(text.stdout).toMatch(/^would delete \(dry run\):\n/);
    expect(text.stdout).toContain('kept on purpose:\n  1 tokens revoked less than 300 s ago (max(refreshTokens.graceSeconds, 60 s))');
    expect(text.stdout).toContain('  1 rotated tokens of refresh families still in use: presenting one again must revoke');
    expect(text.stdout).toContain('  2 codes used or expired less than 600 s ago (authorizationCodeExpiresIn)');
    expect(text.stdout).toContain('never deleted: tokens that never expire');
    expect(await allIds()).toEqual(before);

    const result = await cli.run(['tokens', 'cleanup', '--batch-size', '2', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ deleted: EXPECTED, total: 9, dry_run: false });
    const after = await allIds();
    const remaining = new Set([...after.tokens.map((id) => `t${id}`), ...after.grants.map((id) => `g${id}`)]);
    const label = (name: string, id: number) => `${/Code$/.test(name) ? 'g' : 't'}${id}`;
    for (const [name, id] of Object.entries(keep)) expect(remaining.has(label(name, id)), `${name} kept`).toBe(true);
    for (const [name, id] of Object.entries(stale)) expect(remaining.has(label(name, id)), `${name} deleted`).toBe(false);
    expect(after.tokens.length + after.grants.length).toBe(before.tokens.length + before.grants.length - 9);

    const again = await cli.run(['tokens', 'cleanup']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('deleted:');
    expect(again.stdout).toMatch(/total:\s+0\n$/);
  });

  it('walks a kind in windows of at most --batch-size rows, reading each row once, through ties, microsecond timestamps and live rows', async () => {
    const batches = await cli.withDeps(async (deps, database) => {
      // A clean slate: what the first test kept would age into this run's margins on a slow machine.
      await database.sql.execute('DELETE FROM oauth_access_tokens; DELETE FROM oauth_access_grants');
      const { application } = await createClient(deps);
      // 25 expired tokens created in the same microsecond, and 6 tokens revoked at one instant (a mass revocation).
      await database.sql.query(
        `INSERT INTO oauth_access_tokens (application_id, resource_owner_id, token, expires_in, created_at)
         SELECT $1, 77, md5(random()::text || g::text), 60, TIMESTAMP '2020-01-01 00:00:00.123456' FROM generate_series(1, 25) g`,
        [application.id],
      );
      for (let i = 0; i < 6; i += 1) await insertToken(deps, database, application, { createdAt: ago(MINUTE), refresh: true });
      await deps.stores.accessTokens.revokeAllFor(application.id, 1, ago(HOUR));
      // 10 live tokens after the stale ones in the created_at index: read in windows too, never in one go.
      for (let i = 0; i < 10; i += 1) await insertToken(deps, database, application, { createdAt: ago(MINUTE) });
      const seen: Array<[CleanupKind, number]> = [];
      const windows: Array<[CleanupKind, number]> = [];
      const options = { now: new Date(), batchSize: 4, graceSeconds: 0, refreshTokenExpiresIn: null, authorizationCodeExpiresIn: 600 };
      const counted = await cleanupStaleRecords(database, { ...options, dryRun: true });
      const result = await cleanupStaleRecords(database, {
        ...options,
        onBatch: (kind, rows) => seen.push([kind, rows]),
        onWindow: (kind, scanned) => windows.push([kind, scanned]),
      });
      return { counted: counted.deleted, deleted: result.deleted, seen, windows };
    });
    const expected = { ...NOTHING_DELETED, expired_tokens: 25, revoked_tokens: 6 };
    expect(batches.counted).toEqual(expected);
    expect(batches.deleted).toEqual(expected);
    expect(batches.seen).toEqual([
      ...Array(6).fill(['expired_tokens', 4]),
      ['expired_tokens', 1],
      ['revoked_tokens', 4],
      ['revoked_tokens', 2],
    ]);
    // Every window reads at most the batch size; the created_at walk reads each of the 41 rows once (25 expired,
    // 6 revoked, 10 live), the revoked_at walk the 6 revoked ones and stops at its bound.
    expect(Math.max(...batches.windows.map(([, scanned]) => scanned))).toBeLessThanOrEqual(4);
    const read = (kind: CleanupKind) => batches.windows.filter(([k]) => k === kind).reduce((sum, [, scanned]) => sum + scanned, 0);
    expect([read('expired_tokens'), read('revoked_tokens')]).toEqual([41, 6]);
  });

  it('--dry-run names the 60-second margin for revoked tokens when refreshTokens.graceSeconds is shorter', async () => {
    const defaults = await createCliHarness();
    try {
      await defaults.withDeps(async (deps, database) => {
        const { application } = await createClient(deps);
        await insertToken(deps, database, application, { createdAt: ago(HOUR), revokedAt: ago(30_000) });
        await insertToken(deps, database, application, { createdAt: ago(HOUR), revokedAt: ago(2 * MINUTE) });
      });
      const result = await defaults.run(['tokens', 'cleanup', '--dry-run']);
      expect(result.stdout).toMatch(/revoked tokens:\s+1\n/);
      expect(result.stdout).toContain(
        '1 tokens revoked less than 60 s ago (max(refreshTokens.graceSeconds, 60 s)): requests in flight may',
      );
      const json = JSON.parse((await defaults.run(['tokens', 'cleanup', '--dry-run', '--json'])).stdout);
      expect(json.kept).toMatchObject({ revoked_margin_seconds: 60, revoked_within_margin: 1 });
      // A real run says what it deleted, without the dry run's explanation.
      const real = await defaults.run(['tokens', 'cleanup']);
      expect(real.stdout).not.toContain('kept on purpose');
      expect(JSON.parse((await defaults.run(['tokens', 'cleanup', '--json'])).stdout)).not.toHaveProperty('kept');
    } finally {
      await defaults.close();
    }
  });

  it('bad arguments exit 2 with one line and delete nothing; --help exits 0', async () => {
    for (const [argv, message] of [
      [['tokens', 'cleanup', '--batch-size', 'abc'], "--batch-size must be an integer from 1 to 100000, not 'abc'"],
      [['tokens', 'cleanup', '--batch-size', '0'], '--batch-size must be an integer'],
      [['tokens', 'cleanup', '--batch-size', '2.5'], '--batch-size must be an integer'],
      // A negative number is the option's value, refused by the option's own rule (not parseArgs' "ambiguous").
      [['tokens', 'cleanup', '--batch-size', '-1'], "--batch-size must be an integer from 1 to 100000, not '-1'"],
      [['tokens', 'cleanup', '--batch-size'], "'--batch-size <value>' argument missing"],
      [['tokens', 'cleanup', '--force'], "Unknown option '--force'"],
      [['tokens', 'purge'], "unknown subcommand 'tokens purge'"],
      [['tokens'], "expected 'tokens cleanup'"],
    ] as Array<[string[], string]>) {
      const result = await cli.run(argv);
      expect(usageErrorLine(result), argv.join(' ')).toContain(message);
      expect(result.stdout).toBe('');
    }
    for (const argv of [
      ['tokens', '--help'],
      ['tokens', 'cleanup', '--help'],
    ]) {
      const help = await cli.run(argv);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Usage: oauth-service tokens cleanup');
    }
  });
});
