/**
 * @oauth-service/guard: protects the routes of a Fastify API with OAuth 2.0 bearer access tokens (RFC 6750),
 * either inside the authorization server (local mode), in any other Node API that asks the server's
 * introspection endpoint (remote mode, RFC 7662), or that verifies JWT access tokens by itself (jwt mode,
 * RFC 9068). With `resource` set it serves the API's Protected Resource Metadata (RFC 9728); with `dpop` it accepts
 * DPoP-bound tokens with their proofs (RFC 9449). Depends on fastify,
 * fastify-plugin, jose and node:* only.
 *
 * @example
 * import Fastify from 'fastify';
 * import { serviceGuard } from '@oauth-service/guard';
 *
 * const app = Fastify();
 * await app.register(serviceGuard, {
 *   mode: 'remote',
 *   introspectionUrl: 'https://auth.example.com/oauth/introspect',
 *   clientId: process.env.OAUTH_CLIENT_ID!,
 *   clientSecret: process.env.OAUTH_CLIENT_SECRET!,
 * });
 * app.get('/notes', { preHandler: app.serviceAuthorize() }, async (request) => ({ owner: (await request.serviceToken())?.resourceOwnerId }));
 * app.post('/notes', { preHandler: app.serviceAuthorize('write') }, async () => ({ ok: true }));
 *
 * @packageDocumentation
 */
export { serviceGuard, type ServiceAuthorizeHook } from './plugin.js';
export { GuardError, GuardMisconfiguredError, GuardUnavailableError } from './guard-error.js';
export { createRemoteIntrospector } from './remote-introspection.js';
export { protectedResourceMetadata } from './resource-metadata.js';
export type { AuthenticationRequirement } from './authentication-requirement-shapes.js';
export type { DpopAlgorithm, DpopNonceOptions, DpopOptions } from './dpop-options.js';
export type {
  GuardCommonOptions,
  GuardForbiddenRenderOptions,
  GuardLogger,
  GuardRenderOptions,
  GuardToken,
  Introspect,
  JwtAlgorithm,
  JwtGuardOptions,
  LocalGuardOptions,
  ProtectedResourceOptions,
  RemoteGuardOptions,
  RemoteIntrospectionOptions,
  RenderOptionsHook,
  ServiceGuardOptions,
} from './types.js';
export type { DpopProblem, InvalidTokenReason, TokenProblem } from './token-problem.js';
