// The only place that knows driver and Prisma error codes: which failures mean "the database is
// unreachable right now" (503, retry later) rather than a bug (500).

import { ApplicationGone } from '../oauth/store.js';

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '25006', // read_only_sql_transaction: a primary demoted by a failover (or read-only) until we reach the new one
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection exceptions
  '08P01', // also PgBouncer's code when it has no server for us: query_wait_timeout, server_login_retry (a failover)
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024', // Prisma: can't reach, timed out, closed, pool timeout
]);

const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
  'DatabaseNotReachable',
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown; name?: unknown };
    if (typeof candidate.code === 'string' && CONNECTION_ERROR_CODES.has(candidate.code)) return true;
    if (typeof candidate.message === 'string' && CONNECTION_MESSAGES.some((m) => (candidate.message as string).includes(m))) {
      return true;
    }
    if (candidate.name === 'DriverAdapterError' && typeof candidate.cause === 'object') {
      current = candidate.cause;
      continue;
    }
    current = candidate.cause;
  }
  return false;
}

// Failures that prove a statement changed nothing, so it may be sent again (failover-retry.ts): no connection was
// made, the server refused the login, a standby or read-only primary refused to write (the statement's
// transaction rolls back whole), or PgBouncer refused before forwarding anything to a server.
const NOTHING_WRITTEN_CODES = new Set(['ECONNREFUSED', '57P03', '25006']);
const POOLER_REFUSALS = ['server_login_retry', 'query_wait_timeout', 'timeout exceeded when trying to connect'];

export function nothingWritten(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && NOTHING_WRITTEN_CODES.has(candidate.code)) return true;
    if (typeof candidate.message === 'string' && POOLER_REFUSALS.some((m) => (candidate.message as string).includes(m))) return true;
    current = candidate.cause;
  }
  return false;
}

/** A foreign key violation (PostgreSQL 23503, Prisma P2003): the row referred to does not exist (any more). */
export function foreignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'P2003';
}

/** Prisma's "unique constraint failed" (P2002), with the columns involved when known. */
export function uniqueViolation(error: unknown): string[] | null {
  const candidate = error as { code?: unknown; meta?: { target?: unknown } };
  if (candidate?.code !== 'P2002' && candidate?.code !== '23505') return null;
  const target = candidate.meta?.target;
  return Array.isArray(target) ? target.map(String) : [];
}

/**
 * Token and grant tables have one foreign key, to oauth_applications: an INSERT violating it is for an application
 * deleted since it was read (an application cache on another instance), which the domain answers as an unknown client.
 */
export async function storing<T>(insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (foreignKeyViolation(error)) throw new ApplicationGone();
    throw error;
  }
}
