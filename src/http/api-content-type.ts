import type { FastifyReply, FastifyRequest } from 'fastify';

/** The API group of the seed: token, revoke, introspect and token info. */
export const API_GROUP_PATHS = new Set(['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth/token/info']);

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Seed, Endpoints: a POST, PUT or PATCH to the API group whose content type is not form-urlencoded gets
 * 415 before anything else happens, also for a method the path does not otherwise serve (SPEC 3).
 */
export async function requireFormContentType(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!BODY_METHODS.has(request.method)) return;
  const path = request.url.split('?', 1)[0] ?? '';
  if (!API_GROUP_PATHS.has(path)) return;
  const mediaType = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType === 'application/x-www-form-urlencoded') return;
  await reply
    .code(415)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send({ error: 'invalid_request', error_description: 'The request body must be application/x-www-form-urlencoded.' });
}
