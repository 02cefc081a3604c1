import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthenticationRequirement, CheckedRequirement } from './authentication-requirement-shapes.js';
import type { GuardToken } from './types.js';

// RFC 9470 step-up: what a route asks of the user's sign-in behind a token, beyond its scopes. The token tells
// (introspection's acr and auth_time members, section 6.1; a JWT access token's claims, RFC 9068 section 2.2.1);
// a token that does not tell, or tells too little, is refused with insufficient_user_authentication, whose challenge
// names what would be enough.

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * RFC 9470 step-up on this route: the sign-in its `serviceAuthorize` preHandlers require, replacing the guard's
     * `requireAuthentication`. Checked when the route is defined.
     */
    requireAuthentication?: AuthenticationRequirement;
  }
}

const ACR_VALUE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The requirement of a guard or route, checked when it is defined: a mistake fails the boot, never a request. */
export function checkedRequirement(requirement: AuthenticationRequirement | undefined, where: string): CheckedRequirement | null {
  if (requirement === undefined) return null;
  if (requirement === null || typeof requirement !== 'object') throw new TypeError(`${where}: requireAuthentication must be an object`);
  const { acr = [], maxAge } = requirement;
  if (!Array.isArray(acr) || !acr.every((value) => typeof value === 'string' && ACR_VALUE.test(value))) {
    throw new TypeError(`${where}: requireAuthentication.acr must be a list of acr values (printable ASCII, no space or quote)`);
  }
  if (maxAge !== undefined && !(Number.isInteger(maxAge) && maxAge >= 0)) {
    throw new TypeError(`${where}: requireAuthentication.maxAge must be a whole number of seconds`);
  }
  if (acr.length === 0 && maxAge === undefined) throw new TypeError(`${where}: requireAuthentication needs acr or maxAge`);
  return Object.freeze({ acr: Object.freeze([...acr]), maxAge: maxAge ?? null });
}

/**
 * Why the token's sign-in does not meet the requirement (the error_description of the challenge), or null when it
 * does. A token that does not say when or how the user signed in (a client's own token among them) meets neither.
 */
export function authenticationShortfall(token: GuardToken, requirement: CheckedRequirement, nowMs: number): string | null {
  if (requirement.acr.length > 0 && !requirement.acr.includes(token.acr ?? '')) return 'A different authentication level is required';
  if (requirement.maxAge !== null) {
    const authTime = token.authTime ?? null;
    // In whole seconds, as auth_time is: maxAge 0 is a sign-in this very second, not one no token can meet.
    if (authTime === null || Math.floor(nowMs / 1000) - authTime > requirement.maxAge) return 'More recent authentication is required';
  }
  return null;
}

/**
 * The requirement of a request's route: its `config.requireAuthentication`, else the guard's option. Every route's is
 * checked when the route is defined (onRoute), then once more on first use and kept by its config object.
 */
export function requirementResolver(
  app: FastifyInstance,
  guardOption: AuthenticationRequirement | undefined,
): (request: FastifyRequest) => CheckedRequirement | null {
  const guardRequirement = checkedRequirement(guardOption, 'serviceGuard');
  const routeRequirements = new WeakMap<object, CheckedRequirement | null>();
  app.addHook('onRoute', (route) => {
    checkedRequirement(route.config?.requireAuthentication, `route ${route.method} ${route.url}`);
  });
  return (request) => {
    const config = request.routeOptions.config;
    if (config?.requireAuthentication === undefined) return guardRequirement;
    let checked = routeRequirements.get(config);
    if (checked === undefined) {
      checked = checkedRequirement(config.requireAuthentication, `route ${request.routeOptions.url ?? ''}`);
      routeRequirements.set(config, checked);
    }
    return checked;
  };
}
