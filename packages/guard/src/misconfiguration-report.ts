import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { GuardMisconfiguredError } from './guard-error.js';
import type { GuardLogger } from './types.js';

// Every request fails the same way until the configuration is fixed: one line a minute says it, a line per request
// under load would flood the logs (its own outage) without saying more.
const REPORT_INTERVAL_MS = 60_000;

const MESSAGE =
  "serviceGuard: the authorization server refused the API's own introspection request (check clientId, clientSecret and introspectionUrl); protected routes answer 500 until it is fixed";

/** Tells the operator that the guard's own credentials were refused; called for every such request. */
export type MisconfigurationReport = (request: FastifyRequest, error: GuardMisconfiguredError) => void;

const consoleLogger: GuardLogger = {
  // Looked up at each call, so whatever console.error is then receives it.
  error: (details, message) => console.error(message, details),
};

/**
 * Reports through the app's Fastify logger when it has one (the request's, so the line carries its request id),
 * else through the `logger` option, else console.error: a refused guard is never silent. At most once per minute
 * per guard instance.
 */
export function misconfigurationReport(
  appLog: FastifyBaseLogger,
  logger: GuardLogger | undefined,
  now: () => number,
): MisconfigurationReport {
  // Fastify without a logger gives a placeholder whose every method does nothing and whose child is itself.
  const appHasLogger = appLog.child({}) !== appLog;
  let reportedAt = Number.NEGATIVE_INFINITY;
  return function reportMisconfiguration(request, error) {
    if (now() - reportedAt < REPORT_INTERVAL_MS) return;
    reportedAt = now();
    const details = { guard: 'misconfigured', introspectionUrl: error.url, status: error.status, serviceError: error.serviceError };
    (appHasLogger ? request.log : (logger ?? consoleLogger)).error(details, MESSAGE);
  };
}

/** The `logger` option, checked at registration so a wrong value fails the boot, not the first report. */
export function guardLogger(value: unknown): GuardLogger | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || typeof (value as { error?: unknown }).error !== 'function') {
    throw new TypeError("serviceGuard: logger must be an object with an error(details, message) method, like pino's logger");
  }
  return value as GuardLogger;
}
