import type { FastifyPluginAsync } from 'fastify';
import { tokenInfo } from '../../../oauth/token-info.js';
import { noStore } from '../../no-store.js';
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
  },
  required: ['resource_owner_id', 'scope', 'expires_in', 'application', 'created_at'],
} as const;

/** The Bearer token of the Authorization header (RFC 6750 section 2.1), or null. */
function bearerFrom(authorization: string | undefined): string | null {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  return match?.[1] ?? null;
}

/** GET /oauth/token/info (reference 11; SPEC 3.4). */
export const tokenInfoRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.get('/oauth/token/info', { schema: { response: { 200: tokenInfoSchema, ...oauthErrorResponses } } }, async (request, reply) => {
    const bearer = bearerFrom(request.headers.authorization);
    // RFC 6750 section 3.1: a request without any token gets the challenge without an error code.
    if (bearer === null) reply.header('www-authenticate', `Bearer realm="${deps.config.realm}"`);
    const info = await tokenInfo(deps, bearer);
    return noStore(reply).send(info);
  });
};
