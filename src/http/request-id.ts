import { randomUUID } from 'node:crypto';

// X-Request-Id (as Rails' ActionDispatch::RequestId, and most proxies, set it): an id a proxy or the caller sent is kept
// when it is short and plain, so that a failure the caller reports is found in the log by it; otherwise a random one,
// unique across instances and restarts (Fastify's own counter starts again at req-1 in every process). The answer
// carries it back (security-headers.ts).
const PLAIN_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && PLAIN_ID.test(given) ? given : randomUUID();
}
