import type { FastifyPluginAsync } from 'fastify';
import { publishedJwks, signingKeySettings } from '../../../oauth/keys/signing-key-service.js';
import { jwksMaxAge } from '../../../oauth/keys/signing-keys.js';
import { publicDocumentPreflight } from '../../plugins/cors.js';
import type { RouteOptions } from '../../route-options.js';

const jwksSchema = {
  type: 'object',
  properties: { keys: { type: 'array', items: { type: 'object', additionalProperties: true } } },
  required: ['keys'],
  additionalProperties: false,
} as const;

/**
 * GET /oauth/jwks (RFC 7517 section 5): the public signing keys published now. Cacheable for half the
 * publish-ahead window, so a cache has always seen a key before the first token it signs (issue 16).
 */
export const jwksRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const cacheControl = `public, max-age=${jwksMaxAge(signingKeySettings(deps.config))}`;
  app.get('/oauth/jwks', { config: { publicDocument: true }, schema: { response: { 200: jwksSchema } } }, async (_request, reply) =>
    reply
      .header('cache-control', cacheControl)
      .type('application/jwk-set+json')
      .send(await publishedJwks(deps)),
  );
  app.options('/oauth/jwks', publicDocumentPreflight);
};
