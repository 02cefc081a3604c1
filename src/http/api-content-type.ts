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

type OnRequestHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * Seed, Endpoints: a POST, PUT or PATCH to the API group whose content type is not form-urlencoded gets
 * 415 before anything else happens, also for a method the path does not otherwise serve (SPEC 3), answered by
 * the app-wide error handler. `removed`: the group's paths the config takes away (introspection.enabled false, no
 * device flow); each is no longer in the group and answers 404 as any unknown path (seed: `false` "removes the
 * introspection route entirely").
 */
export function requireFormContentType(removed: readonly string[]): OnRequestHook {
  const paths = new Set([...API_GROUP_PATHS].filter((path) => !removed.includes(path)));
  // A callback hook, not an async one: it runs on every request, and a promise each time costs more than the check.
  return (request, _reply, done) => done(hasFormContentTypeWhereNeeded(request, paths) ? undefined : new UnsupportedMediaType());
}

function hasFormContentTypeWhereNeeded(request: FastifyRequest, paths: ReadonlySet<string>): boolean {
  if (!BODY_METHODS.has(request.method)) return true;
  if (!inGroup(request, paths)) return true;
  return isFormContentType(request.headers['content-type'] ?? '');
}

/** Whether a Content-Type header is application/x-www-form-urlencoded, with or without parameters, in any case. */
export function isFormContentType(type: string): boolean {
  // The exact header first: what every client sends, without the work of parsing it.
  return type === FORM || type.split(';', 1)[0]!.trim().toLowerCase() === FORM;
}

/**
 * Whether the request is for one of `paths` as the router reads its path: percent-decoded and without a fragment, so
 * `/oauth/%74oken` and `/oauth/token#x` reach the token endpoint and are held to its rule too (found by the seed
 * audit: a JSON body sent so was read as the parameters). The plain path is compared first: what every client sends.
 */
function inGroup(request: FastifyRequest, paths: ReadonlySet<string>): boolean {
  const url = request.url;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (paths.has(path)) return true;
  if (!path.includes('%') && !path.includes('#')) return false;
  // The route the router found; none for a method the path does not serve (PUT /oauth/%74oken is 415 all the same).
  return paths.has(request.routeOptions.url ?? routerPath(path));
}

function routerPath(path: string): string {
  const [beforeFragment = ''] = path.split('#', 1);
  try {
    return decodeURIComponent(beforeFragment);
  } catch {
    return beforeFragment;
  }
}
