import type { FastifyRequest } from 'fastify';
import type { OAuthHooks } from '../oauth/hooks.js';
import type { ControllerExtension } from './controllers/registry.js';

/** The controller keys of the seed (interface.md "What the service does", item 5). */
export const CONTROLLER_KEYS = ['applications', 'authorized_applications', 'authorizations', 'tokens', 'token_info'] as const;
export type ControllerKey = (typeof CONTROLLER_KEYS)[number];

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
