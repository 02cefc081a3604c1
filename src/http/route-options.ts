import type { OAuthDeps } from '../oauth/deps.js';
import type { Controllers } from './controllers/registry.js';
import type { AuthenticateAdminOptions } from './hooks/authenticate-admin.js';

/** What app.ts hands every endpoint group: the domain's dependencies and the controllers, nothing global. */
export interface RouteOptions {
  deps: OAuthDeps;
  /** One instance per controller key: the built-in class or the extension's subclass (SPEC 7). */
  controllers: Controllers;
}

export interface AdminRouteOptions extends RouteOptions, AuthenticateAdminOptions {}
