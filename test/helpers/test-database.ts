import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabase, type Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';

/** The server the suite runs against: PostgreSQL when DATABASE_URL is set, else embedded PGlite. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL || null;
export const backend = TEST_DATABASE_URL ? 'postgresql' : 'pglite';

export interface TestDatabase {
  database: Database;
  /** Connection URL of this test's own PostgreSQL database; null on PGlite. */
  url: string | null;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test file: a new PostgreSQL database created from DATABASE_URL, or a
 * new in-memory PGlite. `migrated: false` leaves it without tables.
 */
export async function createTestDatabase({ migrated = true } = {}): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    const database = await createDatabase({ databaseUrl: null, dataDir: 'memory://' });
    if (migrated) await migrate(database);
    return { database, url: null, drop: () => database.close() };
  }
  const name = `oauth_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = withDatabaseName(TEST_DATABASE_URL, name);
  const database = await createDatabase({ databaseUrl: url, dataDir: 'unused', poolSize: 10 });
  if (migrated) await migrate(database);
  return {
    database,
    url,
    async drop() {
      await database.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** An empty PostgreSQL database URL without opening it (tests of migration races); null on PGlite. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  if (!TEST_DATABASE_URL) return null;
  const name = `oauth_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return { url: withDatabaseName(TEST_DATABASE_URL, name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
