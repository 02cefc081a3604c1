import type { FastifyRequest } from 'fastify';
import { UnsupportedMediaType } from '../oauth/errors.js';

/** The API group of the seed: token, revoke, introspect and token info. */
export const API_GROUP_PATHS = new Set(['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth/token/info']);

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Seed, Endpoints: a POST, PUT or PATCH to the API group whose content type is not form-urlencoded gets
 * 415 before anything else happens, also for a method the path does not otherwise serve (SPEC 3), answered by
 * the app-wide error handler.
 */
export async function requireFormContentType(request: FastifyRequest): Promise<void> {
  if (!BODY_METHODS.has(request.method)) return;
  const path = request.url.split('?', 1)[0] ?? '';
  if (!API_GROUP_PATHS.has(path)) return;
  const mediaType = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType === 'application/x-www-form-urlencoded') return;
  throw new UnsupportedMediaType();
}
