import type { FastifyPluginAsync } from 'fastify';
import { serviceGuard } from '@oauth-service/guard';
import { noStore } from '../../no-store.js';
import { localGuardOptions } from '../../plugins/local-guard.js';
import type { RouteOptions } from '../../route-options.js';
import { oauthErrorResponses } from '../../schemas.js';

const tokenInfoSchema = {
  type: 'object',
  properties: {
    resource_owner_id: { type: ['integer', 'null'] },
    scope: { type: 'array', items: { type: 'string' } },
    expires_in: { type: ['integer', 'null'] },
    application: { type: 'object', properties: { uid: { type: ['string', 'null'] } }, required: ['uid'] },
    created_at: { type: 'integer' },
    cnf: { type: 'object', properties: { jkt: { type: 'string' } }, description: 'RFC 9449: the key a DPoP-bound token is bound to.' },
  },
  required: ['resource_owner_id', 'scope', 'expires_in', 'application', 'created_at'],
} as const;

/**
 * GET /oauth/token/info (reference 11; SPEC 3.4, 6): the `show` action of the `token_info` controller, behind
 * the guard in local mode. The guard answers a request without a usable token: 401 invalid_token with RFC
 * 6750's challenge (no error code when no token was sent, section 3.1).
 */
export const tokenInfoRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps, controllers }) => {
  // Reference 11: this endpoint says "The access token is invalid" whatever the reason (revoked, expired).
  await app.register(serviceGuard, localGuardOptions(deps, { reportReasons: false }));
  // RFC 6749 section 5.1's no-store and no-cache on every answer, the guard's refusals included.
  app.addHook('onRequest', async (_request, reply) => void noStore(reply));
  const controller = controllers.token_info;
  app.get(
    '/oauth/token/info',
    { schema: { response: { 200: tokenInfoSchema, ...oauthErrorResponses } }, preHandler: app.serviceAuthorize() },
    (request, reply) => controller.show(request, reply),
  );
};
