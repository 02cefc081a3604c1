import { isDatabaseUnavailable } from './prisma-errors.js';

/**
 * Runs the single-key calls made while the event loop handles one batch of I/O as one multi-key call: under load,
 * the requests whose bytes arrived together (16 connections give 4-10 at a time) share one statement, one round
 * trip and one executor start in PostgreSQL instead of paying for each. A lone call waits only for the end of the
 * current loop turn (setImmediate), so an idle server answers as fast as before.
 *
 * With `maxInFlight`, at most that many batches are out at once; calls made meanwhile gather into the next batch,
 * sent as soon as one returns (group commit): under load a round trip to PostgreSQL, which costs the service and
 * the server more than the rows it carries, then serves several times more calls. A call waits at most for one
 * round trip more, and only while the limit is reached.
 *
 * Every call's statement starts after the call was made: a batch is sent when it is flushed and takes no call
 * after that, so a read still sees every write committed before its request arrived (a revocation answered 200
 * is seen by the next introspection), and nothing is ever answered from an earlier result.
 */
export function coalescer<Key, Result>(
  runBatch: (keys: readonly Key[]) => Promise<readonly Result[]>,
  { maxBatch, maxInFlight = Infinity }: { maxBatch: number; maxInFlight?: number },
): (key: Key) => Promise<Result> {
  type Call = { key: Key; resolve: (result: Result) => void; reject: (error: unknown) => void };
  let pending: Call[] = [];
  // The calls of a failed multi-key batch, each sent again on its own, within maxInFlight like any batch.
  const retries: Call[] = [];
  let inFlight = 0;
  let scheduled = false;

  const settle = (calls: Call[]): Promise<void> =>
    runBatch(calls.map((call) => call.key)).then(
      (results) => calls.forEach((call, i) => call.resolve(results[i]!)),
      (error: unknown) => {
        // A batch that failed for one of its keys (a unique violation on a write, say) is run again key by key, so
        // each call gets its own outcome; the failed batch wrote nothing, being one statement. An unreachable
        // database fails every call at once: retrying each would only multiply the waits.
        if (calls.length === 1 || isDatabaseUnavailable(error)) calls.forEach((call) => call.reject(error));
        else retries.push(...calls);
      },
    );

  const returned = () => {
    inFlight -= 1;
    flush();
  };

  function flush(): void {
    while (inFlight < maxInFlight && (retries.length > 0 || pending.length > 0)) {
      let batch: Call[];
      if (retries.length > 0) batch = [retries.shift()!];
      else if (pending.length > maxBatch) batch = pending.splice(0, maxBatch);
      else [batch, pending] = [pending, []];
      inFlight += 1;
      void settle(batch).then(returned);
    }
  }

  const flushAtEndOfTurn = () => {
    scheduled = false;
    flush();
  };

  return (key) =>
    new Promise<Result>((resolve, reject) => {
      pending.push({ key, resolve, reject });
      // A full batch goes at once; the turn's scheduled flush then finds the rest (or nothing) and sends it.
      if (pending.length >= maxBatch && inFlight < maxInFlight) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flushAtEndOfTurn);
      }
    });
}
