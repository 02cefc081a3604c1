import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlClientForConnection, sqlClientForPool } from '../../src/storage/sql-client.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-database.js';

// The lean SQL path's statements (src/storage/sql-client.ts): a config built once per statement must still send
// each call's own values, parse our column types, and prepare named statements only when they are allowed.
const TYPED = { name: 'sql_client_test_typed', text: 'SELECT $1::bigint AS id, $2::timestamp AS at, $3::text AS label' };
const PREPARED = "SELECT name FROM pg_prepared_statements WHERE name = 'sql_client_test_typed'";

// pool.end() can resolve while a connection's session is still closing on the server, and the teardown's DROP DATABASE
// ... WITH (FORCE) then ends that session with FATAL 57P01: expected there, and not the test's (a CI run failed on it
// as an uncaught error). The service ignores such errors of its idle connections too (database.ts).
const newPool = (url: string) => {
  const created = new pg.Pool({ connectionString: url, max: 1 });
  created.on('connect', (client) => client.on('error', () => undefined));
  // The pool re-emits an idle connection's error as its own (another CI run's uncaught 57P01 came that way).
  created.on('error', () => undefined);
  return created;
};

describe.skipIf(!TEST_DATABASE_URL)('the SQL client on PostgreSQL', () => {
  let test: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    test = await createTestDatabase({ migrated: false });
    pool = newPool(test.url!);
  });
  afterAll(async () => {
    await pool.end();
    await test.drop();
  });

  it('answers a reused statement with each call’s values, BIGINT as a number and TIMESTAMP as UTC', async () => {
    const sql = sqlClientForPool(pool);
    const first = await sql.query(TYPED, [41, '2026-01-02T03:04:05.678Z', 'first']);
    const second = await sql.query(TYPED, [9007199254740991, '2026-06-30 23:59:59', 'second']);
    expect(first).toEqual([{ id: 41, at: new Date('2026-01-02T03:04:05.678Z'), label: 'first' }]);
    expect(second).toEqual([{ id: 9007199254740991, at: new Date('2026-06-30T23:59:59Z'), label: 'second' }]);
  });

  it('prepares a named statement on the connection, and none with namedStatements false (transaction-mode poolers)', async () => {
    const unnamedPool = newPool(test.url!);
    try {
      const unnamed = sqlClientForPool(unnamedPool, { namedStatements: false });
      expect(await unnamed.query(TYPED, [1, '2026-01-01T00:00:00Z', 'unnamed'])).toHaveLength(1);
      expect(await unnamed.query(PREPARED)).toEqual([]);
    } finally {
      await unnamedPool.end();
    }
    const named = sqlClientForPool(pool);
    await named.query(TYPED, [2, '2026-01-01T00:00:00Z', 'named']);
    expect(await named.query(PREPARED)).toEqual([{ name: 'sql_client_test_typed' }]);
  });

  it('sends the same statement on a transaction’s connection, named or not, with that call’s values', async () => {
    const client = await pool.connect();
    try {
      for (const namedStatements of [true, false]) {
        const sql = sqlClientForConnection(client, { namedStatements });
        expect(await sql.query(TYPED, [7, '2026-03-04T05:06:07Z', String(namedStatements)])).toEqual([
          { id: 7, at: new Date('2026-03-04T05:06:07Z'), label: String(namedStatements) },
        ]);
      }
    } finally {
      client.release();
    }
  });
});
