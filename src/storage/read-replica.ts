import type pg from 'pg';
import { isDatabaseUnavailable } from './prisma-errors.js';
import { sqlClientForPool, type PoolClientOptions, type SqlClient, type SqlStatement } from './sql-client.js';

/** After a connection failure the replica is left alone this long, so requests do not each wait for a dead server. */
const RETRY_AFTER_MS = 5_000;
// A standby cancels a query that conflicts with WAL replay (serialization_failure); the primary can answer it.
const RECOVERY_CONFLICT = '40001';

/**
 * SPEC 9: introspection reads on a streaming replica. Correct only when the replica is a synchronous standby
 * and the primary's commits wait for it to apply them (synchronous_commit = remote_apply, set on every primary
 * connection by createDatabase): then a token revoked or issued on the primary is seen on the replica as soon
 * as the revoking request has its answer, on every instance.
 */
export interface ReadReplica {
  /** Reads on the replica; on the primary while the replica is unreachable, and for a query it cancels. */
  readonly sql: SqlClient;
  /** Refuses a setup that would serve stale token state; tolerates a replica that is down (reads fall back). */
  verify(): Promise<void>;
  /** Called when reads move to the primary because the replica failed; at once if it is down already (boot). */
  onFallback(listener: (error: unknown) => void): void;
  /** Called when a probe after a failure succeeded: reads are back on the replica. */
  onRecovery(listener: () => void): void;
}

export class ReadReplicaSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReadReplicaSetupError';
  }
}

export function createReadReplica(
  pool: pg.Pool,
  primary: SqlClient,
  options: PoolClientOptions = {},
  now: () => number = Date.now,
): ReadReplica {
  const replica = sqlClientForPool(pool, options);
  const listeners: Array<(error: unknown) => void> = [];
  const recoveryListeners: Array<() => void> = [];
  let downUntil = 0;
  let lastFailure: unknown = null;
  const markDown = (error: unknown) => {
    downUntil = now() + RETRY_AFTER_MS;
    lastFailure = error;
    for (const listener of listeners) listener(error);
  };
  const sql: SqlClient = {
    async query<Row>(statement: SqlStatement, values?: readonly unknown[]) {
      if (now() < downUntil) return primary.query<Row>(statement, values);
      // After a failure one request at a time probes the replica; the others stay on the primary meanwhile.
      if (downUntil !== 0) downUntil = now() + RETRY_AFTER_MS;
      try {
        const rows = await replica.query<Row>(statement, values);
        if (downUntil !== 0) {
          downUntil = 0;
          for (const listener of recoveryListeners) listener();
        }
        return rows;
      } catch (error) {
        if (isDatabaseUnavailable(error)) markDown(error);
        else if ((error as { code?: unknown }).code !== RECOVERY_CONFLICT) throw error;
        return primary.query<Row>(statement, values);
      }
    },
    execute: () => Promise.reject(new Error('the read replica only serves reads')),
    transaction: () => Promise.reject(new Error('the read replica only serves reads')),
  };
  return {
    sql,
    onFallback(listener) {
      listeners.push(listener);
      if (now() < downUntil) listener(lastFailure);
    },
    onRecovery: (listener) => void recoveryListeners.push(listener),
    async verify() {
      await verifyPrimary(primary);
      let inRecovery: boolean;
      try {
        inRecovery = (await replica.query<{ in_recovery: boolean }>('SELECT pg_is_in_recovery() AS in_recovery'))[0]!.in_recovery;
      } catch (error) {
        if (isDatabaseUnavailable(error)) return markDown(error);
        // A wrong role, password or database: say which URL it is about.
        throw new ReadReplicaSetupError(`databaseReadUrl: ${(error as Error).message}`);
      }
      if (!inRecovery) {
        throw new ReadReplicaSetupError(
          'databaseReadUrl: the server it points at is not a standby (pg_is_in_recovery() is false). Point it at a ' +
            'streaming replica of databaseUrl, or leave it unset to read from the primary.',
        );
      }
    },
  };
}

async function verifyPrimary(primary: SqlClient): Promise<void> {
  const setting = async (name: string) => (await primary.query<{ value: string }>('SELECT current_setting($1) AS value', [name]))[0]!.value;
  if ((await setting('synchronous_standby_names')).trim() === '') {
    throw new ReadReplicaSetupError(
      'databaseReadUrl is set, but the primary (databaseUrl) has no synchronous standby (synchronous_standby_names ' +
        'is empty): a token revoked on the primary would stay active on the replica until replication caught up. ' +
        'List the replica in synchronous_standby_names on the primary (docs/operations.md, "Read replicas"), or unset databaseReadUrl.',
    );
  }
  if ((await setting('synchronous_commit')) !== 'remote_apply') {
    throw new ReadReplicaSetupError(
      'databaseReadUrl is set, but sessions on the primary do not run with synchronous_commit = remote_apply (a ' +
        'connection pooler may drop the startup option that sets it): run ALTER ROLE <the service role> SET ' +
        'synchronous_commit = remote_apply on the primary, or unset databaseReadUrl.',
    );
  }
}
