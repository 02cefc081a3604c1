import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/client.js';
import { sqlClientForConnection, sqlClientForPglite, sqlClientForPool, type SqlClient } from './sql-client.js';

export interface DatabaseOptions {
  /** PostgreSQL URL; null selects embedded PGlite. */
  databaseUrl: string | null;
  /** Folder of the embedded database; `memory://` keeps it in memory (tests). */
  dataDir: string;
  poolSize?: number;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface Database {
  readonly kind: 'postgresql' | 'pglite';
  /** Where the data lives, without credentials (for the boot log). */
  readonly location: string;
  readonly prisma: PrismaClient;
  readonly sql: SqlClient;
  /** Session-level work on one dedicated connection (advisory locks, migrations). */
  withConnection<T>(work: (sql: SqlClient) => Promise<T>): Promise<T>;
  poolStats(): PoolStats;
  close(): Promise<void>;
}

/** Both backends behind one interface: PostgreSQL through @prisma/adapter-pg, or PGlite in a data folder. */
export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? createPostgres(options.databaseUrl, options.poolSize ?? 10) : createPglite(options.dataDir);
}

async function createPostgres(url: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A database outage must turn into 503s quickly, never into hanging requests (SPEC 9).
    connectionTimeoutMillis: 5_000,
    query_timeout: 15_000,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
  });
  // Errors of idle clients (a restarted server) are expected; the next checkout reconnects.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const sql = sqlClientForPool(pool);
  return {
    kind: 'postgresql',
    location: redactUrl(url),
    prisma,
    sql,
    async withConnection(work) {
      const client = await pool.connect();
      try {
        return await work(sqlClientForConnection(client));
      } finally {
        client.release();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

async function createPglite(dataDir: string): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  const location = inMemory ? dataDir : resolve(dataDir);
  if (!inMemory) mkdirSync(location, { recursive: true });
  const db = await PGlite.create(location);
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  const sql = sqlClientForPglite(db);
  return {
    kind: 'pglite',
    location,
    prisma,
    sql,
    // PGlite is one connection: session state is shared by everything, and that is fine for one process.
    withConnection: (work) => work(sql),
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgresql://(unparsable URL)';
  }
}
