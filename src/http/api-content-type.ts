import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { UnsupportedMediaType } from '../oauth/errors.js';

/**
 * The API group of the seed: token, revoke, introspect and token info; RFC 8628's device authorization (issue 34)
 * and RFC 9126's pushed authorization requests (issue 36).
 */
export const API_GROUP_PATHS = new Set([
  '/oauth/token',
  '/oauth/revoke',
  '/oauth/introspect',
  '/oauth/token/info',
  '/oauth/device_authorization',
  '/oauth/par',
]);

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const FORM = 'application/x-www-form-urlencoded';

/**
 * Seed, Endpoints: a POST, PUT or PATCH to the API group whose content type is not form-urlencoded gets
 * 415 before anything else happens, also for a method the path does not otherwise serve (SPEC 3), answered by
 * the app-wide error handler.
 */
export function requireFormContentType(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  done(hasFormContentTypeWhereNeeded(request) ? undefined : new UnsupportedMediaType());
}

// A callback hook, not an async one: it runs on every request, and a promise each time costs more than the check.
function hasFormContentTypeWhereNeeded(request: FastifyRequest): boolean {
  if (!BODY_METHODS.has(request.method)) return true;
  const query = request.url.indexOf('?');
  if (!API_GROUP_PATHS.has(query === -1 ? request.url : request.url.slice(0, query))) return true;
  const type = request.headers['content-type'];
  // The exact header first: what every client sends, without the work of parsing it.
  if (type === FORM) return true;
  return (type ?? '').split(';', 1)[0]!.trim().toLowerCase() === FORM;
}
