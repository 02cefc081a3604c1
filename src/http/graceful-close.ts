import type { FastifyInstance } from 'fastify';

/**
 * The longest graceful shutdown waits for unfinished requests. `docker stop` sends SIGKILL 10 s after SIGTERM
 * (docs/operations.md "Docker" promises exit code 0 within them); 5 s leaves the other half for what follows the
 * last connection: the database close (PGlite's checkpoint) and the export of the buffered spans.
 */
const MAX_GRACE_MS = 5_000;

/**
 * How long in-flight requests get once shutdown begins: requestTimeoutSeconds, the time a request already had to
 * arrive whole, capped by MAX_GRACE_MS. Once close() has begun, Node no longer answers a stalled request 408 at that
 * deadline (it stops checking), so without this bound one client sending a body slowly holds the process forever.
 */
export function shutdownGraceMs(requestTimeoutSeconds: number): number {
  return Math.min(requestTimeoutSeconds * 1000, MAX_GRACE_MS);
}

/**
 * app.close() that stops accepting and lets in-flight requests finish, but ends the connections still open after
 * `graceMs` (the service's and the metrics listener's), so that the onClose hooks run and the process can exit.
 */
export async function closeWithin(app: FastifyInstance, graceMs: number): Promise<void> {
  const deadline = setTimeout(() => {
    app.log.warn({ graceMs }, 'shutdown grace period over: closing the connections of unfinished requests');
    app.server.closeAllConnections();
    app.metricsListener?.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(deadline);
  }
}
