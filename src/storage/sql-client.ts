import { createRequire } from 'node:module';
import type pg from 'pg';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { isDatabaseUnavailable } from './prisma-errors.js';

/**
 * The lean path beside Prisma: parameterised SQL on the same pool (PostgreSQL) or instance (PGlite) the
 * Prisma adapter uses. Hot queries are named, so PostgreSQL prepares them once per connection (unless the
 * connections go through a transaction-mode pooler: PoolClientOptions).
 */
export interface SqlClient {
  query<Row = Record<string, unknown>>(statement: SqlStatement, values?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements (simple protocol, no parameters): migrations. */
  execute(script: string): Promise<void>;
  /** Runs `work` in one transaction; rolls back when it throws. */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
}

/** A named statement (prepared once per connection) or plain text. */
export type SqlStatement = { name: string; text: string } | string;

const textOf = (statement: SqlStatement) => (typeof statement === 'string' ? statement : statement.text);

export interface PoolClientOptions {
  /**
   * false: every statement goes unnamed (pg then uses the unnamed prepared statement, parsed anew each time), as a
   * transaction-mode pooler needs: PgBouncer 1.18 hands each transaction any server connection, where a statement
   * prepared on another one does not exist (config databasePreparedStatements).
   */
  namedStatements?: boolean;
}

/**
 * A statement's query config, built once per statement (not per call: bench/RESULTS.md, issue 21). Its text, name
 * and types are inherited, not its own, because pg copies a config's own properties by their descriptors on every
 * query (normalizeQueryConfig), which cost more than the rest of our query path; the values go beside it, as
 * pg's query(config, values) takes them. A plain-text statement (not on a hot path) gets a config of its own.
 */
function queryConfigs(named: boolean): (statement: SqlStatement) => pg.QueryConfig {
  const built = new WeakMap<object, pg.QueryConfig>();
  return (statement) => {
    if (typeof statement === 'string') return { text: statement, types: pgTypes };
    let config = built.get(statement);
    if (!config) {
      const fields = named ? { name: statement.name, text: statement.text } : { text: statement.text };
      config = Object.create({ ...fields, types: pgTypes }) as pg.QueryConfig;
      built.set(statement, config);
    }
    return config;
  };
}
const configsBy = { named: queryConfigs(true), unnamed: queryConfigs(false) };
const configsFor = (named: boolean) => (named ? configsBy.named : configsBy.unnamed);

// Our rows use numbers for BIGINT ids (far below 2^53) and UTC for TIMESTAMP columns, as PGlite does;
// pg's defaults (strings, local time) would differ between the two backends.
const TIMESTAMP_OID = 1114;
const INT8_OID = 20;
const parseUtcTimestamp = (value: string) => new Date(`${value.replace(' ', 'T')}Z`);
// pg is loaded with the PostgreSQL backend only (database.ts), never by a command on PGlite: on Node 20 its first
// import alone costs a CLI command 60-80 ms (pg probes for Cloudflare by building a fetch Response, which loads
// Node's fetch). These parsers run on pg's connections only, after database.ts has loaded it: the require is a lookup.
const require = createRequire(import.meta.url);
let pgDefaultTypes: typeof pg.types | undefined;
export const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === TIMESTAMP_OID) return parseUtcTimestamp;
    if (oid === INT8_OID) return Number;
    return (pgDefaultTypes ??= (require('pg') as typeof pg).types).getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

export function sqlClientForPool(pool: pg.Pool, { namedStatements = true }: PoolClientOptions = {}): SqlClient {
  const configOf = configsFor(namedStatements);
  return {
    async query<Row>(statement: SqlStatement, values: readonly unknown[] = []) {
      // pg-pool releases the connection with the error, which destroys it: a broken or read-only one is not reused.
      const result = await pool.query(configOf(statement), values as unknown[]);
      return result.rows as Row[];
    },
    async execute(script: string) {
      await pool.query(script);
    },
    async transaction<T>(work: (tx: SqlClient) => Promise<T>) {
      const { connection, release } = await checkOut(pool);
      try {
        await connection.query('BEGIN');
        const result = await work(sqlClientForConnection(connection, { namedStatements }));
        await connection.query('COMMIT');
        release();
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => undefined);
        release(error);
        throw error;
      }
    },
  };
}

/** A connection taken from the pool for several statements, and how to give it back. */
export interface CheckedOut {
  connection: pg.PoolClient;
  /**
   * Returns it to the pool, or closes it when it broke or `error` says the database failed (a connection that
   * reached a demoted, read-only primary is not reused either).
   */
  release(error?: unknown): void;
}

/**
 * pool.connect(), safe against a connection that breaks between two statements. pg-pool removes its own 'error'
 * listener while a client is checked out, and pg emits 'error' when the connection fails with no statement running
 * (a failover, a network partition): with nobody listening, that event ends the process (issue 32: the HA fault test
 * lost two of three instances to it during a partition). Listened to here until the client is returned; the next
 * statement then fails with the broken connection, as it should.
 */
export async function checkOut(pool: pg.Pool): Promise<CheckedOut> {
  const connection = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  connection.on('error', onError);
  return {
    connection,
    release(error) {
      const failure = broken ?? (isDatabaseUnavailable(error) ? (error as Error) : undefined);
      // A closed client keeps the listener: it may still report its end, and it is never handed out again.
      if (failure === undefined) connection.off('error', onError);
      connection.release(failure);
    },
  };
}

export function sqlClientForConnection(
  connection: pg.PoolClient | pg.Client,
  { namedStatements = true }: PoolClientOptions = {},
): SqlClient {
  const configOf = configsFor(namedStatements);
  return {
    async query<Row>(statement: SqlStatement, values: readonly unknown[] = []) {
      const result = await connection.query(configOf(statement), values as unknown[]);
      return result.rows as Row[];
    },
    async execute(script: string) {
      await connection.query(script);
    },
    transaction: () => Promise.reject(new Error('nested transactions are not supported')),
  };
}

export function sqlClientForPglite(db: PGlite | Transaction): SqlClient {
  return {
    async query<Row>(statement: SqlStatement, values: readonly unknown[] = []) {
      const result = await db.query<Row>(textOf(statement), values as unknown[]);
      return result.rows;
    },
    async execute(script: string) {
      await db.exec(script);
    },
    async transaction<T>(work: (tx: SqlClient) => Promise<T>) {
      if (!('transaction' in db)) throw new Error('nested transactions are not supported');
      return db.transaction((tx) => work(sqlClientForPglite(tx)));
    },
  };
}
