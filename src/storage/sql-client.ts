import pg from 'pg';
import type { PGlite, Transaction } from '@electric-sql/pglite';

/**
 * The lean path beside Prisma: parameterised SQL on the same pool (PostgreSQL) or instance (PGlite) the
 * Prisma adapter uses. Hot queries are named, so PostgreSQL prepares them once per connection.
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

// Our rows use numbers for BIGINT ids (far below 2^53) and UTC for TIMESTAMP columns, as PGlite does;
// pg's defaults (strings, local time) would differ between the two backends.
const TIMESTAMP_OID = 1114;
const INT8_OID = 20;
const parseUtcTimestamp = (value: string) => new Date(`${value.replace(' ', 'T')}Z`);
export const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === TIMESTAMP_OID) return parseUtcTimestamp;
    if (oid === INT8_OID) return Number;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

export function sqlClientForPool(pool: pg.Pool): SqlClient {
  return {
    async query<Row>(statement: SqlStatement, values: readonly unknown[] = []) {
      const config = typeof statement === 'string' ? { text: statement } : statement;
      const result = await pool.query({ ...config, values: values as unknown[], types: pgTypes });
      return result.rows as Row[];
    },
    async execute(script: string) {
      await pool.query(script);
    },
    async transaction<T>(work: (tx: SqlClient) => Promise<T>) {
      const connection = await pool.connect();
      try {
        await connection.query('BEGIN');
        const result = await work(sqlClientForConnection(connection));
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        connection.release();
      }
    },
  };
}

export function sqlClientForConnection(connection: pg.PoolClient | pg.Client): SqlClient {
  return {
    async query<Row>(statement: SqlStatement, values: readonly unknown[] = []) {
      const config = typeof statement === 'string' ? { text: statement } : statement;
      const result = await connection.query({ ...config, values: values as unknown[], types: pgTypes });
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
