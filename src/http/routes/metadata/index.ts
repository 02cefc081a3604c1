import type { FastifyPluginAsync } from 'fastify';
import { authorizationServerMetadata } from '../../../oauth/server-metadata.js';
import type { RouteOptions } from '../../route-options.js';

const metadataSchema = {
  type: 'object',
  properties: { issuer: { type: 'string' }, token_endpoint: { type: 'string' }, response_types_supported: { type: 'array' } },
  required: ['issuer', 'token_endpoint', 'response_types_supported'],
  additionalProperties: true,
} as const;

/** GET /.well-known/oauth-authorization-server (RFC 8414 section 3). */
export const metadataRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const metadata = authorizationServerMetadata(deps.config);
  app.get('/.well-known/oauth-authorization-server', { schema: { response: { 200: metadataSchema } } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=3600').send(metadata),
  );
};
