import type { FastifyReply } from 'fastify';

/** RFC 6749 section 5.1: token responses (and errors) must not be cached. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}
