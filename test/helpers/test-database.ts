import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { createDatabase, type Database } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { migratedInstance, newInstance } from './pglite-instances.js';
import { adminQuery, dropDatabase, withDatabaseName } from '../../scripts/lib/postgres-admin.js';

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
 * A fresh, empty database for one test file: a new PostgreSQL database created from DATABASE_URL, or an
 * in-memory PGlite, each a copy of the run's template (database-templates.ts) when there is one; on PGlite, an earlier
 * test database's instance emptied back to that template (pglite-instances.ts). `migrated: false` leaves it without
 * tables.
 */
export async function createTestDatabase({ migrated = true } = {}): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    const template = migrated ? pgliteDump('pgliteTemplatePath') : undefined;
    const pglite = template ? await migratedInstance(template) : await newInstance(pgliteDump('pgliteEmptyTemplatePath'));
    const database = await createDatabase({ databaseUrl: null, dataDir: 'memory://', pglite });
    // Finds nothing pending on the template (a few ms); kept so every test database goes through migrate().
    if (migrated) await migrate(database);
    return { database, url: null, drop: () => database.close() };
  }
  const name = `oauth_test_${randomBytes(6).toString('hex')}`;
  const template = migrated ? provided('postgresTemplateName') : undefined;
  await adminQuery(TEST_DATABASE_URL, template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const url = withDatabaseName(TEST_DATABASE_URL, name);
  const database = await createDatabase({ databaseUrl: url, dataDir: 'unused', poolSize: 10 });
  if (migrated) await migrate(database);
  return {
    database,
    url,
    async drop() {
      await database.close();
      await dropDatabase(TEST_DATABASE_URL, name);
    },
  };
}

/**
 * PGlite: fills `dataDir` with a copy of the run's migrated template, as a data folder the CLI opens (instead of
 * each harness running initdb and every migration in WebAssembly on its first command). False without a template.
 */
export async function loadMigratedDataDir(dataDir: string): Promise<boolean> {
  const pgliteTemplate = pgliteDump('pgliteTemplatePath');
  if (!pgliteTemplate) return false;
  const database = await createDatabase({ databaseUrl: null, dataDir, pgliteTemplate, embedded: { role: 'cli' } });
  await database.close();
  return true;
}

type TemplateKey = 'pgliteTemplatePath' | 'pgliteEmptyTemplatePath' | 'postgresTemplateName';

/**
 * What the run's globalSetup (database-templates.ts) provided; undefined outside Vitest, where `inject` throws: the
 * full fuzz run (scripts/fuzz.ts) builds its server with these helpers, on a database migrated from nothing.
 */
function provided(key: TemplateKey): string | undefined {
  return process.env.VITEST ? inject(key) : undefined;
}

const dumps = new Map<string, Blob>();

/**
 * One of the run's PGlite dumps (database-templates.ts), read once per worker; undefined without that globalSetup.
 * Not a `new Blob([bytes])`: Node.js 20 reads such a blob back in 64 KB chunks that it concatenates, ~0.5 s for a
 * 40 MB dump at every test database, and PGlite reads the whole dump at once with arrayBuffer(). PGlite copies each
 * file out of it, so one buffer serves every database of the worker unchanged.
 */
function pgliteDump(key: Exclude<TemplateKey, 'postgresTemplateName'>): Blob | undefined {
  const path = provided(key);
  if (!path) return undefined;
  let dump = dumps.get(path);
  if (!dump) dumps.set(path, (dump = wholeBufferBlob(readFileSync(path))));
  return dump;
}

function wholeBufferBlob(bytes: Buffer): Blob {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const blob = { type: '', size: buffer.byteLength, arrayBuffer: async () => buffer };
  return blob as unknown as Blob;
}

/** An empty PostgreSQL database URL without opening it (tests of migration races); null on PGlite. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  if (!TEST_DATABASE_URL) return null;
  const name = `oauth_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(TEST_DATABASE_URL, `CREATE DATABASE ${name}`);
  return { url: withDatabaseName(TEST_DATABASE_URL, name), drop: () => dropDatabase(TEST_DATABASE_URL, name) };
}
