import type { Database } from './database.js';
import type { Prisma } from './generated/client.js';

// Work that must not run in two processes at once (key rotation, the registration cap) takes a transaction-scoped
// advisory lock inside one Prisma interactive transaction and does all its statements there: the lock and the
// work share one connection, so a pool of one connection (databasePoolSize 1) cannot wait on itself, a transaction
// pooler keeps the lock for exactly the transaction, and commit or rollback releases it, also when the process dies.

/** Generous bounds: the work is short, but it may wait for another process's turn at the lock. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 60_000 };

// One session takes an advisory lock it holds again without waiting (PGlite has one session), so calls on one
// database in this process queue here too; this also keeps them from each holding a pooled connection while waiting.
const queues = new WeakMap<Database, Map<bigint, Promise<unknown>>>();

/** Runs `work` in one transaction that first takes pg_advisory_xact_lock(key), after this process's earlier calls. */
export function withAdvisoryTransactionLock<T>(
  database: Database,
  key: bigint,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const byKey = queues.get(database) ?? new Map<bigint, Promise<unknown>>();
  queues.set(database, byKey);
  const run = (byKey.get(key) ?? Promise.resolve()).then(() =>
    database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${key})`;
      return work(tx);
    }, TRANSACTION_OPTIONS),
  );
  byKey.set(
    key,
    run.catch(() => undefined),
  );
  return run;
}
