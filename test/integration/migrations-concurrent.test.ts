import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/storage/database.js';
import { migrate, readMigrations } from '../../src/storage/migrate.js';
import { runService } from '../helpers/processes.js';
import { backend, createEmptyPostgresDatabase, createTestDatabase } from '../helpers/test-database.js';

describe(`migrations at simultaneous start (${backend})`, () => {
  it('two processes migrating the same empty database both succeed and apply each migration once', async () => {
    if (backend === 'pglite') {
      // PGlite is one process's database: the race is between two migrate() calls on it.
      const db = await createTestDatabase({ migrated: false });
      const [a, b] = await Promise.all([migrate(db.database), migrate(db.database)]);
      expect([...a, ...b]).toEqual(readMigrations().map((m) => m.name));
      const rows = await db.database.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
      expect(rows[0]!.n).toBe(readMigrations().length);
      await db.drop();
      return;
    }
    const empty = (await createEmptyPostgresDatabase())!;
    const env = { DATABASE_URL: empty.url };
    const results = await Promise.all([runService(['migrate', '--json'], env), runService(['migrate', '--json'], env)]);
    expect(results.map((r) => r.code)).toEqual([0, 0]);
    const applied = results.flatMap((r) => (JSON.parse(r.stdout) as { applied: string[] }).applied);
    expect(applied).toEqual(readMigrations().map((m) => m.name));
    const database = await createDatabase({ databaseUrl: empty.url, dataDir: 'unused' });
    const rows = await database.sql.query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations"');
    expect(rows.map((r) => r.migration_name)).toEqual(readMigrations().map((m) => m.name));
    await database.close();
    await empty.drop();
  }, 60_000);
});
