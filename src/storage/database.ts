import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Config } from '../config/types.js';
import { redactUrl, withLocalSocket } from './database-url.js';
import type { PrismaClient } from './generated/client.js';
import { prismaOnFirstUse } from './prisma-on-first-use.js';
import type { DataDirLock } from './data-dir-lock.js';
import { routeToEmbedded, startSocketServer, type EmbeddedAccess } from './embedded-database.js';
import type { EmbeddedSocketServer } from './embedded-socket.js';
import { DEFAULT_FAILOVER_RETRY_SECONDS, retryingThroughFailover } from './failover-retry.js';
import { statementTracer } from '../telemetry/statement-tracer.js';
import { tracedPglite } from './traced-pglite.js';
import { createReadReplica } from './read-replica.js';
import { SMALL_SHARED_BUFFERS } from './pglite-start-params.js';
import { checkOut, sqlClientForConnection, sqlClientForPglite, sqlClientForPool, type SqlClient } from './sql-client.js';

export interface DatabaseOptions {
  /** PostgreSQL URL; null selects embedded PGlite. */
  databaseUrl: string | null;
  /** A synchronous streaming replica of databaseUrl for introspection and token-info reads (SPEC 9). */
  databaseReadUrl?: string | null;
  /** Folder of the embedded database; `memory://` keeps it in memory (tests). */
  dataDir: string;
  poolSize?: number;
  /** false: unnamed statements only, for a transaction-mode pooler such as PgBouncer (sql-client.ts). Default true. */
  preparedStatements?: boolean;
  /**
   * The primary without a transaction-mode pooler in between, for session-level work (migrations, which hold a
   * session advisory lock across several transactions): behind PgBouncer a lock taken in one transaction and
   * released in the next would land on two server sessions. The other locks are transaction-scoped (advisory-lock.ts).
   * Null: databaseUrl.
   */
  databaseDirectUrl?: string | null;
  /** A dumpDataDir tar that an in-memory PGlite starts from instead of running initdb (tests). */
  pgliteTemplate?: Blob;
  /**
   * An open in-memory PGlite to use instead of starting one, and what close() does with it instead of closing it: the
   * tests start a database for nearly every file, and give each an earlier one's instance emptied back to the
   * template (test-database.ts).
   */
  pglite?: { instance: PGlite; release(): Promise<void> };
  /**
   * Server or CLI command, for a data folder. Default: a server (buildServer without a database, tests), which
   * owns the folder alone; only `serve` also shares it with CLI commands (shareWithCliCommands).
   */
  embedded?: EmbeddedAccess;
  /** PGHOST: where a databaseUrl without a host connects, as psql does (default: the local Unix socket). */
  pgHost?: string | null;
  /**
   * Commit with synchronous_commit = remote_apply even without databaseReadUrl (CLI commands): service instances
   * that read applications on a synchronous standby then see an admin's change (a deleted application, a rotated
   * secret) once the command has answered. Without synchronous standbys remote_apply is a plain local commit.
   */
  commitOnStandbys?: boolean;
  /** How long a statement refused in a way that proves it wrote nothing is sent again (failover-retry.ts). Default 10. */
  failoverRetrySeconds?: number;
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
  /** The running server whose embedded database this reaches through its socket (its process id); else null. */
  readonly servingProcess: number | null;
  readonly prisma: PrismaClient;
  readonly sql: SqlClient;
  /** Where introspection and token info read tokens: the read replica when there is one, else `sql`. */
  readonly readSql: SqlClient;
  /** The read replica (databaseReadUrl), when there is one. */
  readonly readReplica: ReadReplicaHandle | null;
  /**
   * A server on a data folder, once migrated: serves the folder's PGlite to CLI commands over its Unix socket
   * (embedded-socket.ts) until close. A no-op elsewhere.
   */
  shareWithCliCommands(onWarning: (message: string) => void): Promise<void>;
  /** Called once a CLI command has finished a transaction through that socket: cached rows may be stale. */
  onCliCommit(listener: () => void): void;
  /** Session-level work on one dedicated connection (migrations and their advisory lock), on databaseDirectUrl if set. */
  withConnection<T>(work: (sql: SqlClient) => Promise<T>): Promise<T>;
  poolStats(): PoolStats;
  /**
   * Whether the primary takes writes now: false on a standby (a demoted leader HAProxy has not left yet) or a
   * server in read-only mode. Throws when it cannot be reached. /readyz answers 503 while this is false.
   */
  primaryWritable(): Promise<boolean>;
  close(): Promise<void>;
}

export interface ReadReplicaHandle {
  poolStats(): PoolStats;
  /** Called when reads move to the primary because the replica failed (at once if it is down already). */
  onFallback(listener: (error: unknown) => void): void;
  /** Called when reads are back on the replica after a failure. */
  onRecovery(listener: () => void): void;
}

type DatabaseConfig = Pick<
  Config,
  | 'databaseUrl'
  | 'databaseReadUrl'
  | 'databaseDirectUrl'
  | 'databasePreparedStatements'
  | 'databaseFailoverRetrySeconds'
  | 'dataDir'
  | 'databasePoolSize'
>;

/** What the service opens: the pool of databasePoolSize on databaseUrl, and the read replica if configured. */
export function databaseOptions(config: DatabaseConfig): DatabaseOptions {
  const {
    databaseUrl,
    databaseReadUrl,
    databaseDirectUrl,
    databasePreparedStatements,
    databaseFailoverRetrySeconds,
    dataDir,
    databasePoolSize,
  } = config;
  return {
    databaseUrl,
    databaseReadUrl,
    databaseDirectUrl,
    preparedStatements: databasePreparedStatements,
    failoverRetrySeconds: databaseFailoverRetrySeconds,
    dataDir,
    poolSize: databasePoolSize,
  };
}

/** Both backends behind one interface: PostgreSQL through @prisma/adapter-pg, or PGlite in a data folder. */
export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const url = withLocalSocket(options.databaseUrl, options.pgHost ?? null);
    const target = { connection: { connectionString: url }, location: redactUrl(options.databaseUrl), source: 'DATABASE_URL' };
    const directUrl = options.databaseDirectUrl ? withLocalSocket(options.databaseDirectUrl, options.pgHost ?? null) : null;
    return createPostgres(target, options.databaseReadUrl ?? null, options.poolSize ?? 10, {
      namedStatements: options.preparedStatements ?? true,
      directUrl,
      commitOnStandbys: options.commitOnStandbys ?? false,
      failoverRetrySeconds: options.failoverRetrySeconds ?? DEFAULT_FAILOVER_RETRY_SECONDS,
    });
  }
  if (options.databaseReadUrl) throw new Error('databaseReadUrl needs databaseUrl: the embedded database has no replicas');
  const route = await routeToEmbedded(options.dataDir, options.embedded ?? { role: 'server' });
  if (route.kind === 'socket') {
    // One connection: the server serves its single PGlite session to one client at a time (embedded-socket.ts).
    const connection = { host: route.host, port: route.port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 30_000 };
    const served = await createPostgres({ connection, location: route.location, source: 'the running server' }, null, 1, {
      namedStatements: true,
      directUrl: null,
      commitOnStandbys: false,
      failoverRetrySeconds: DEFAULT_FAILOVER_RETRY_SECONDS,
    });
    return { ...served, servingProcess: route.ownerPid };
  }
  try {
    return await createPglite(route.location, options, route.lock);
  } catch (error) {
    route.lock?.release();
    throw error;
  }
}

interface PostgresTarget {
  connection: pg.PoolConfig;
  /** Where it is, without credentials. */
  location: string;
  /** Where the location was configured, named when it cannot be reached. */
  source: string;
}

interface PostgresSetup {
  namedStatements: boolean;
  directUrl: string | null;
  commitOnStandbys: boolean;
  failoverRetrySeconds: number;
}

async function createPostgres(
  target: PostgresTarget,
  readUrl: string | null,
  poolSize: number,
  { namedStatements, directUrl, commitOnStandbys, failoverRetrySeconds }: PostgresSetup,
): Promise<Database> {
  // Each backend's driver is loaded when it is opened: a CLI command on one never pays for loading the other (issue 30).
  const { default: pg } = await import('pg');
  // With a read replica every commit waits until the replica has applied it, so what one request writes
  // (a revocation) is what the next one reads there, on any instance (read-replica.ts).
  const sessionOptions = readUrl || commitOnStandbys ? { options: '-c synchronous_commit=remote_apply' } : {};
  const pool = createPool(pg.Pool, target.connection, poolSize, 'oauth-service', sessionOptions);
  // Session-level work needs one server session from lock to unlock: a pooler in transaction mode cannot promise it.
  const directPool = directUrl ? createPool(pg.Pool, { connectionString: directUrl }, 2, 'oauth-service sessions', sessionOptions) : null;
  try {
    await Promise.all([pool.query('SELECT 1'), directPool?.query('SELECT 1')]);
  } catch (error) {
    await Promise.all([pool.end(), directPool?.end()]);
    throw new Error(`cannot connect to the database of ${target.source} (${target.location}): ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Prisma's adapter sends its statements unnamed already (no statementNameGenerator): fine behind any pooler.
  const prisma = prismaOnFirstUse(async () => new (await import('@prisma/adapter-pg')).PrismaPg(pool));
  const pooled = sqlClientForPool(pool, { namedStatements });
  // What a failover refuses in a way that proves nothing was written is sent again for a while (failover-retry.ts).
  const sql = retryingThroughFailover(pooled, { budgetMs: failoverRetrySeconds * 1_000 });
  // A replica that does not answer is left for the primary quickly (read-replica.ts), not after 5 s per request.
  const readPool = readUrl
    ? createPool(pg.Pool, { connectionString: readUrl }, poolSize, 'oauth-service reads', { connectionTimeoutMillis: 2_000 })
    : null;
  const replica = readPool && createReadReplica(readPool, sql, { namedStatements });
  try {
    await replica?.verify();
  } catch (error) {
    await Promise.all([pool.end(), readPool?.end(), directPool?.end()]);
    throw error;
  }
  return {
    kind: 'postgresql',
    location: target.location + (readUrl ? ` (reads: ${redactUrl(readUrl)})` : ''),
    servingProcess: null,
    prisma,
    sql,
    readSql: replica?.sql ?? sql,
    readReplica: replica &&
      readPool && { poolStats: () => statsOf(readPool), onFallback: replica.onFallback, onRecovery: replica.onRecovery },
    shareWithCliCommands: async () => undefined,
    // Other processes' changes on PostgreSQL are seen within the cache's lifetime (application-cache.ts).
    onCliCommit: () => undefined,
    async withConnection(work) {
      const { connection, release } = await checkOut(directPool ?? pool);
      let failure: unknown;
      try {
        return await work(sqlClientForConnection(connection, { namedStatements: directPool !== null || namedStatements }));
      } catch (error) {
        // A session that failed may hold its advisory lock: closing it is what releases the lock for sure.
        failure = error;
        throw error;
      } finally {
        release(failure);
      }
    },
    poolStats: () => statsOf(pool),
    // Without retries: readiness says whether a writable primary answers now.
    primaryWritable: async () => (await pooled.query<{ writable: boolean }>(WRITABLE))[0]!.writable,
    async close() {
      await prisma.$disconnect();
      await Promise.all([pool.end(), readPool?.end(), directPool?.end()]);
    },
  };
}

/** PGlite on the folder; one it cannot start on (damaged, or not a database) is named, with the setting that chose it. */
async function openPglite(
  pglite: typeof PGlite,
  location: string,
  loadDataDir: DatabaseOptions['pgliteTemplate'],
  startParams: string[] | undefined,
) {
  try {
    return await pglite.create(location, { loadDataDir, ...(startParams && { startParams }) });
  } catch (error) {
    throw new Error(
      `the embedded database in ${location} cannot be opened (${(error as Error).message}): the folder is damaged or holds ` +
        'no database of this version; restore it from a backup, or set DATA_DIR (dataDir) to another folder',
      { cause: error },
    );
  }
}

async function createPglite(location: string, options: DatabaseOptions, lock: DataDirLock | null): Promise<Database> {
  const { PGlite: pglite } = await import('@electric-sql/pglite');
  const startParams = options.embedded?.role === 'cli' ? [...pglite.defaultStartParams, ...SMALL_SHARED_BUFFERS] : undefined;
  const db = options.pglite?.instance ?? (await openPglite(pglite, location, options.pgliteTemplate, startParams));
  let socket: EmbeddedSocketServer | null = null;
  const commitListeners: Array<() => void> = [];
  // While traces are exported, every statement of the service is a span (pg's instrumentation does not see PGlite).
  const tracer = statementTracer();
  const client = tracer ? tracedPglite(db, tracer) : db;
  const prisma = prismaOnFirstUse(async () => new (await import('pglite-prisma-adapter')).PrismaPGlite(client));
  const sql = sqlClientForPglite(client);
  return {
    kind: 'pglite',
    location,
    servingProcess: null,
    prisma,
    sql,
    readSql: sql,
    readReplica: null,
    async shareWithCliCommands(onWarning) {
      if (options.embedded?.role === 'server' && lock && !socket) {
        socket = await startSocketServer(db, location, onWarning, () => commitListeners.forEach((listener) => listener()));
      }
    },
    onCliCommit: (listener) => void commitListeners.push(listener),
    // PGlite is one connection: session state is shared by everything, and that is fine for one process.
    withConnection: (work) => work(sql),
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    primaryWritable: async () => true,
    async close() {
      await socket?.close();
      await prisma.$disconnect();
      if (options.pglite) await options.pglite.release();
      else await db.close();
      lock?.release();
    },
  };
}

// A standby, or a primary in read-only mode (default_transaction_read_only), as a demoted leader is.
const WRITABLE = "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable";

const statsOf = (pool: pg.Pool): PoolStats => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });

// application_name tells the service's connections apart in pg_stat_activity (a URL's own setting wins).
function createPool(
  Pool: typeof pg.Pool,
  connection: pg.PoolConfig,
  size: number,
  applicationName: string,
  extra: { options?: string; connectionTimeoutMillis?: number },
): pg.Pool {
  const pool = new Pool({
    application_name: applicationName,
    max: size,
    // A database outage must turn into 503s quickly, never into hanging requests (SPEC 9).
    connectionTimeoutMillis: 5_000,
    query_timeout: 15_000,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
    ...connection,
    ...extra,
  });
  // Errors of idle clients (a restarted server) are expected; the next checkout reconnects.
  pool.on('error', () => undefined);
  return pool;
}
