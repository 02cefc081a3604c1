import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../oauth/deps.js';
import type { Controllers } from './controllers/registry.js';

/** What app.ts hands every endpoint group: the domain's dependencies and the controllers, nothing global. */
export interface RouteOptions {
  deps: OAuthDeps;
  /** One instance per controller key: the built-in class or the extension's subclass (SPEC 7). */
  controllers: Controllers;
}

export interface AdminRouteOptions extends RouteOptions {
  authenticateAdmin?: ((request: FastifyRequest) => boolean | Promise<boolean>) | undefined;
}
