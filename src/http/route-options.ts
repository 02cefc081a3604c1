import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../oauth/deps.js';

/** What app.ts hands every endpoint group: the domain's dependencies, nothing global. */
export interface RouteOptions {
  deps: OAuthDeps;
}

export interface AdminRouteOptions extends RouteOptions {
  authenticateAdmin?: ((request: FastifyRequest) => boolean | Promise<boolean>) | undefined;
}
