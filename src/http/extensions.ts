import type { FastifyRequest } from 'fastify';
import type { OAuthHooks } from '../oauth/hooks.js';
import type { ControllerExtension } from './controllers/registry.js';

/**
 * What an extensions module (config `extensions`) or buildServer's caller may supply (SPEC 7,
 * docs/extending.md): the domain hooks, admin authentication, and a subclass per controller key.
 */
export interface Extensions extends OAuthHooks {
  /** Replaces the admin password check: true lets the request in. */
  authenticateAdmin?(request: FastifyRequest): boolean | Promise<boolean>;
  /** Subclasses of the built-in controllers by key, or a function of the built-in classes returning them. */
  controllers?: ControllerExtension;
}
