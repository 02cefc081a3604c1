import type { FastifyReply } from 'fastify';

/**
 * Cache-Control: no-store, for every answer that carries a token, a code, a secret, a CSRF token or an error.
 * RFC 6749 section 5.1: token responses (and their errors) add Pragma: no-cache, for HTTP/1.0 caches; pages,
 * redirects and operational endpoints pass `{ pragma: false }` and send Cache-Control alone.
 */
export function noStore(reply: FastifyReply, { pragma = true }: { pragma?: boolean } = {}): FastifyReply {
  reply.header('cache-control', 'no-store');
  return pragma ? reply.header('pragma', 'no-cache') : reply;
}
