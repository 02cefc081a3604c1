import { isDatabaseUnavailable, nothingWritten } from './prisma-errors.js';
import type { SqlClient, SqlStatement } from './sql-client.js';

/**
 * A failover (issue 20) refuses statements for a few seconds in ways that prove they changed nothing: PgBouncer
 * turns clients away while its logins to the old leader fail (server_login_retry), the old leader refuses logins
 * while it shuts down (57P03) or writes once it is a standby (25006). Such a statement is sent again, on another
 * connection, until it succeeds or `budgetMs` is spent (config databaseFailoverRetrySeconds); only then does the
 * request answer 503. Patroni's switchover refuses for 3-8 s; the budget must cover it, or a planned switchover fails
 * requests that could have waited.
 *
 * Never sent again: a statement that may have reached a writable primary and failed after (a terminated session,
 * 57P01; a reset connection): its commit may have happened with the answer lost, and a second try of a refresh
 * rotation or a conditional update would then answer differently from the first. A standalone SELECT is the
 * exception: it writes nothing, so any connection failure may be retried.
 */
export const DEFAULT_FAILOVER_RETRY_SECONDS = 10;

export interface FailoverRetryOptions {
  /** How long after the first attempt a refused statement is still tried again. */
  budgetMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 1_000;

const textOf = (statement: SqlStatement) => (typeof statement === 'string' ? statement : statement.text);
/**
 * A statement that can only read: a SELECT, or a union of parenthesised SELECTs (the batched token lookup,
 * coalesced-token-reads.ts). A WITH may hide a data-modifying CTE, so it does not count.
 */
export const isStandaloneRead = (statement: SqlStatement) => /^[\s(]*select\b/i.test(textOf(statement));

export function retryingThroughFailover(
  sql: SqlClient,
  {
    budgetMs = DEFAULT_FAILOVER_RETRY_SECONDS * 1_000,
    now = Date.now,
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }: FailoverRetryOptions = {},
): SqlClient {
  async function retried<T>(attempt: () => Promise<T>, safe: (error: unknown) => boolean): Promise<T> {
    const deadline = now() + budgetMs;
    for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
      try {
        return await attempt();
      } catch (error) {
        if (!safe(error) || now() + delay > deadline) throw error;
        await sleep(delay);
      }
    }
  }
  return {
    query: (statement, values) =>
      retried(
        () => sql.query(statement, values),
        (error) => nothingWritten(error) || (isStandaloneRead(statement) && isDatabaseUnavailable(error)),
      ),
    // Migrations run once, under their own lock: a failure is reported, not retried.
    execute: (script) => sql.execute(script),
    // A transaction is run again whole only when it provably wrote nothing: its BEGIN found no server, or a
    // read-only server refused one of its writes (which aborts and rolls back all of it). `work` is run again too.
    transaction: (work) => retried(() => sql.transaction(work), nothingWritten),
  };
}
