import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from './database.js';
import type { SqlClient } from './sql-client.js';

/** prisma/migrations, found from both src/storage (tsx) and dist/storage (compiled). */
export const MIGRATIONS_DIR =
  [join(import.meta.dirname, '../../prisma/migrations'), join(process.cwd(), 'prisma/migrations')].find((dir) => existsSync(dir)) ??
  join(process.cwd(), 'prisma/migrations');

// Any constant shared by every instance; 0x6f61757468 is "oauth".
const MIGRATION_LOCK_KEY = 0x6f61757468;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
  /** Applied migrations this build does not have: a newer version migrated the database. */
  unknown: string[];
}

/**
 * A database a newer version migrated: this one would run on a schema it does not know, and could undo what the newer
 * one keeps (a disabled client or user it cannot see). Refused before anything is read or written.
 */
export class NewerDatabaseSchema extends Error {
  constructor(unknown: string[]) {
    super(
      `the database was migrated by a newer version of oauth-service (migrations this version does not have: ${unknown.join(', ')}). ` +
        'Run that version or a later one, or restore the backup taken before the upgrade (docs/operations.md "Upgrades").',
    );
  }
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

// The table exactly as Prisma Migrate creates it, so `prisma migrate status` agrees where the engine exists.
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/**
 * A server on the data folder that lacks migrations of this version: it applied every migration it knows when it
 * started, so it is older. Applying them through its socket would leave it serving a schema it does not know (and,
 * restarted, refusing the folder as NewerDatabaseSchema). Refused before anything is written.
 */
export class OlderServerRunning extends Error {
  constructor(pid: number, pending: string[]) {
    super(
      `the server running as process ${pid} on this data folder is an older version of oauth-service (its database lacks ` +
        `this version's migrations ${pending.join(', ')}): stop it, then run this command again, or start this ` +
        'version\'s server (docs/operations.md "Upgrades").',
    );
  }
}

/**
 * Applies pending migrations, each in its own transaction, under a PostgreSQL advisory lock so that
 * several instances starting at once apply each migration exactly once. Returns the names applied.
 */
export function migrate(database: Database, migrations = readMigrations()): Promise<string[]> {
  // Advisory locks are re-entrant within one session, and PGlite is a single session: calls in this
  // process queue up here, calls from other processes wait on the lock.
  const previous = inProcess.get(database) ?? Promise.resolve([]);
  const run = previous.catch(() => []).then(() => migrateUnderLock(database, migrations));
  inProcess.set(database, run);
  return run;
}

const inProcess = new WeakMap<Database, Promise<string[]>>();

async function migrateUnderLock(database: Database, migrations: Migration[]): Promise<string[]> {
  // Nearly always every migration is applied: two reads say so without the lock and the CREATE TABLE (four statements,
  // ~10 ms of every CLI command on a data folder, issue 30). Anything pending takes the locked path, which reads again.
  const status = await migrationStatus(database, migrations);
  if (status.unknown.length > 0) throw new NewerDatabaseSchema(status.unknown);
  if (status.pending.length === 0) return [];
  if (database.servingProcess !== null) throw new OlderServerRunning(database.servingProcess, status.pending);
  return database.withConnection(async (sql) => {
    await sql.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await sql.query(CREATE_MIGRATIONS_TABLE);
      const applied = new Set(await appliedNames(sql));
      const unknown = unknownNames(applied, migrations);
      if (unknown.length > 0) throw new NewerDatabaseSchema(unknown);
      const done: string[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.name)) continue;
        await applyOne(sql, migration);
        done.push(migration.name);
      }
      return done;
    } finally {
      await sql.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  });
}

async function applyOne(sql: SqlClient, migration: Migration): Promise<void> {
  await sql.query('BEGIN');
  try {
    const id = randomUUID();
    await sql.query(
      'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
      [id, migration.checksum, migration.name],
    );
    await sql.execute(migration.sql);
    await sql.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
    await sql.query('COMMIT');
  } catch (error) {
    await sql.query('ROLLBACK');
    throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
  }
}

async function appliedNames(sql: SqlClient): Promise<string[]> {
  const rows = await sql.query<{ migration_name: string }>(
    'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  return rows.map((row) => row.migration_name);
}

/** Which migrations are applied and pending; throws when the database cannot be reached. */
export async function migrationStatus(database: Database, migrations = readMigrations()): Promise<MigrationStatus> {
  const [{ exists } = { exists: false }] = await database.sql.query<{ exists: boolean }>(
    "SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS exists",
  );
  const applied = exists ? new Set(await appliedNames(database.sql)) : new Set<string>();
  return {
    applied: migrations.filter((m) => applied.has(m.name)).map((m) => m.name),
    pending: migrations.filter((m) => !applied.has(m.name)).map((m) => m.name),
    unknown: unknownNames(applied, migrations),
  };
}

function unknownNames(applied: ReadonlySet<string>, migrations: Migration[]): string[] {
  const known = new Set(migrations.map((migration) => migration.name));
  return [...applied].filter((name) => !known.has(name)).sort();
}
