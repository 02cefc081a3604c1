import { describe, expect, it } from 'vitest';
import { createClient } from '../helpers/factories.js';
import { backend, createTestDatabase } from '../helpers/test-database.js';
import { buildTestServer } from '../helpers/test-server.js';

// The suite's own honesty: on PGlite a test database may be an earlier one's instance emptied back to the template
// (test/helpers/pglite-instances.ts). Whatever the earlier test left, the next one must find a fresh database, and the
// earlier one must not reach the instance any more. On PostgreSQL each test database is a new one; the same holds.

// The OID a new object gets: PostgreSQL's counter goes on in a reused instance, and starts from the template's in a new one.
const nextOid = async (sql: { execute(script: string): Promise<void>; query<Row>(text: string): Promise<Row[]> }) => {
  await sql.execute('CREATE TEMPORARY TABLE oid_probe ()');
  return Number((await sql.query<{ oid: number }>("SELECT 'oid_probe'::regclass::oid AS oid"))[0]!.oid);
};

describe(`a test database after an earlier one (${backend})`, () => {
  it('is empty, numbers its rows from the start again, has its session reset, and the closed one reaches nothing', async () => {
    const first = await buildTestServer();
    const { application } = await createClient(first.deps);
    await createClient(first.deps);
    const sql = first.testDatabase.database.sql;
    await sql.execute("SET application_name = 'left by the earlier test'; SELECT pg_advisory_lock(42)");
    const earlierOid = await nextOid(sql);
    await first.close();

    const second = await createTestDatabase();
    try {
      const next = second.database.sql;
      if (backend === 'pglite') expect(await nextOid(next)).toBeGreaterThan(earlierOid); // the same instance, reused
      expect(await next.query('SELECT count(*)::int AS n FROM oauth_applications')).toEqual([{ n: 0 }]);
      const [setting] = await next.query<{ name: string }>("SELECT current_setting('application_name') AS name");
      expect(setting!.name).not.toBe('left by the earlier test');
      // pg_locks is the whole cluster's on PostgreSQL, where other files' databases take advisory locks at the same time.
      const advisoryLocksHere =
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
      expect(await next.query(advisoryLocksHere)).toEqual([{ n: 0 }]);
      const server = await buildTestServer({ testDatabase: second });
      try {
        expect((await createClient(server.deps)).application.id).toBe(application.id);
      } finally {
        await server.close();
      }
      await expect(sql.query('SELECT 1')).rejects.toThrow();
    } finally {
      await second.drop();
    }
  });

  it('whose schema a test changed is not used again', async () => {
    const first = await createTestDatabase();
    await first.database.sql.execute('ALTER TABLE oauth_applications ADD COLUMN left_by_a_test text');
    await first.drop();
    const second = await createTestDatabase();
    try {
      const columns = await second.database.sql.query(
        "SELECT 1 FROM information_schema.columns WHERE table_name = 'oauth_applications' AND column_name = 'left_by_a_test'",
      );
      expect(columns).toEqual([]);
    } finally {
      await second.drop();
    }
  });
});
