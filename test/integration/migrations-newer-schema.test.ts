import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/storage/migrate.js';
import { backend } from '../helpers/test-database.js';
import { createCliHarness, runCliInProcess, type CliHarness } from '../helpers/cli.js';

// A database a newer version migrated (a migration this build does not have is applied): every command and the
// server refuse it, with what to do, instead of running on a schema they do not know (an older version would serve
// the tokens of a client the newer one disabled). Found by the upgrade audit: an old build booted silently.

const FUTURE = '29991231000000_from_a_newer_version';

describe(`a database migrated by a newer version (${backend})`, () => {
  let cli: CliHarness;

  beforeAll(async () => {
    cli = await createCliHarness();
    await cli.stdout(['apps', 'create', '--name', 'Before the downgrade', '--redirect-uri', 'https://app.example.com/cb']);
    await cli.withDeps((_deps, database) =>
      database.sql.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES ('00000000-0000-4000-8000-000000000000', $1, $2, now(), now(), 1)`,
        ['0'.repeat(64), FUTURE],
      ),
    );
  });
  afterAll(() => cli?.close());

  it('a command that opens the database refuses it, naming the unknown migration and what to do (exit 1, nothing read)', async () => {
    const result = await cli.run(['apps', 'list']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `oauth-service: the database was migrated by a newer version of oauth-service (migrations this version does not have: ${FUTURE}). ` +
        'Run that version or a later one, or restore the backup taken before the upgrade (docs/operations.md "Upgrades").\n',
    );
    expect((await cli.run(['migrate'])).code).toBe(1);
  });

  it('migrate --status lists it, in text and JSON, and exits 1 (a pre-flight script sees this version cannot run)', async () => {
    const text = await cli.run(['migrate', '--status']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`unknown (applied by a newer version): ${FUTURE}\n`);
    expect(text.stderr).toContain('oauth-service: the database was migrated by a newer version of oauth-service');
    const json = await cli.run(['migrate', '--status', '--json']);
    expect(json.code).toBe(1);
    const status = JSON.parse(json.stdout);
    expect(status.unknown).toEqual([FUTURE]);
    expect(status.pending).toEqual([]);
  });
});

describe.runIf(backend === 'pglite')('migrate --status on a data folder without a database', () => {
  it('says so and lists every migration pending, and creates nothing (it only reads)', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'migrate-status-')), 'not-yet');
    try {
      const result = await runCliInProcess(['migrate', '--status', '--json'], { DATA_DIR: folder });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe(`oauth-service: no database in ${folder} yet (nothing was created there): every migration is pending\n`);
      const status = JSON.parse(result.stdout);
      expect(status).toMatchObject({ applied: [], unknown: [] });
      expect(status.pending).toEqual(readMigrations().map((migration) => migration.name));
      expect(existsSync(folder)).toBe(false);
    } finally {
      rmSync(dirname(folder), { recursive: true, force: true });
    }
  });
});
