import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { Config } from '../config/types.js';
import { PrismaClient } from './generated/client.js';
import { createReadReplica } from './read-replica.js';
import { sqlClientForConnection, sqlClientForPglite, sqlClientForPool, type SqlClient } from './sql-client.js';

export interface DatabaseOptions {
  /** PostgreSQL URL; null selects embedded PGlite. */
  databaseUrl: string | null;
  /** A synchronous streaming replica of databaseUrl for introspection and token-info reads (SPEC 9). */
  databaseReadUrl?: string | null;
  /** Folder of the embedded database; `memory://` keeps it in memory (tests). */
  dataDir: string;
  poolSize?: number;
  /** A dumpDataDir tar that an in-memory PGlite starts from instead of running initdb (tests). */
  pgliteTemplate?: Blob;
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
  /** Where introspection and token info read tokens: the read replica when there is one, else `sql`. */
  readonly readSql: SqlClient;
  /** The read replica (databaseReadUrl), when there is one. */
  readonly readReplica: ReadReplicaHandle | null;
  /** Session-level work on one dedicated connection (advisory locks, migrations). */
  withConnection<T>(work: (sql: SqlClient) => Promise<T>): Promise<T>;
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export interface ReadReplicaHandle {
  poolStats(): PoolStats;
  /** Called when reads move to the primary because the replica failed (at once if it is down already). */
  onFallback(listener: (error: unknown) => void): void;
  /** Called when reads are back on the replica after a failure. */
  onRecovery(listener: () => void): void;
}

type DatabaseConfig = Pick<Config, 'databaseUrl' | 'databaseReadUrl' | 'dataDir' | 'databasePoolSize'>;

/** What the service opens: the pool of databasePoolSize on databaseUrl, and the read replica if configured. */
export function databaseOptions({ databaseUrl, databaseReadUrl, dataDir, databasePoolSize }: DatabaseConfig): DatabaseOptions {
  return { databaseUrl, databaseReadUrl, dataDir, poolSize: databasePoolSize };
}

/** Both backends behind one interface: PostgreSQL through @prisma/adapter-pg, or PGlite in a data folder. */
export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return createPostgres(options.databaseUrl, options.databaseReadUrl ?? null, options.poolSize ?? 10);
  if (options.databaseReadUrl) throw new Error('databaseReadUrl needs databaseUrl: the embedded database has no replicas');
  return createPglite(options.dataDir, options.pgliteTemplate);
}

async function createPostgres(url: string, readUrl: string | null, poolSize: number): Promise<Database> {
  // With a read replica every commit waits until the replica has applied it, so what one request writes
  // (a revocation) is what the next one reads there, on any instance (read-replica.ts).
  const pool = createPool(url, poolSize, 'oauth-service', readUrl ? { options: '-c synchronous_commit=remote_apply' } : {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const sql = sqlClientForPool(pool);
  // A replica that does not answer is left for the primary quickly (read-replica.ts), not after 5 s per request.
  const readPool = readUrl ? createPool(readUrl, poolSize, 'oauth-service reads', { connectionTimeoutMillis: 2_000 }) : null;
  const replica = readPool && createReadReplica(readPool, sql);
  try {
    await replica?.verify();
  } catch (error) {
    await Promise.all([pool.end(), readPool?.end()]);
    throw error;
  }
  return {
    kind: 'postgresql',
    location: redactUrl(url) + (readUrl ? ` (reads: ${redactUrl(readUrl)})` : ''),
    prisma,
    sql,
    readSql: replica?.sql ?? sql,
    readReplica: replica && readPool && { poolStats: () => statsOf(readPool), onFallback: replica.onFallback, onRecovery: replica.onRecovery },
    async withConnection(work) {
      const client = await pool.connect();
      try {
        return await work(sqlClientForConnection(client));
      } finally {
        client.release();
      }
    },
    poolStats: () => statsOf(pool),
    async close() {
      await prisma.$disconnect();
      await Promise.all([pool.end(), readPool?.end()]);
    },
  };
}

async function createPglite(dataDir: string, template?: Blob): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  const location = inMemory ? dataDir : resolve(dataDir);
  if (!inMemory) mkdirSync(location, { recursive: true });
  const db = await PGlite.create(location, { loadDataDir: template });
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  const sql = sqlClientForPglite(db);
  return {
    kind: 'pglite',
    location,
    prisma,
    sql,
    readSql: sql,
    readReplica: null,
    // PGlite is one connection: session state is shared by everything, and that is fine for one process.
    withConnection: (work) => work(sql),
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}

const statsOf = (pool: pg.Pool): PoolStats => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });

// application_name tells the service's connections apart in pg_stat_activity (a URL's own setting wins).
function createPool(url: string, size: number, applicationName: string, extra: { options?: string; connectionTimeoutMillis?: number }): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    application_name: applicationName,
    max: size,
    // A database outage must turn into 503s quickly, never into hanging requests (SPEC 9).
    connectionTimeoutMillis: 5_000,
    query_timeout: 15_000,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
    ...extra,
  });
  // Errors of idle clients (a restarted server) are expected; the next checkout reconnects.
  pool.on('error', () => undefined);
  return pool;
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
