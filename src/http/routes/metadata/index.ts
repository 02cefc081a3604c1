import type { FastifyPluginAsync } from 'fastify';
import { authorizationDetailsTypesSupported } from '../../../oauth/resources/authorization-details.js';
import { authorizationServerMetadata } from '../../../oauth/server-metadata.js';
import type { RouteOptions } from '../../route-options.js';

const metadataSchema = {
  type: 'object',
  properties: { issuer: { type: 'string' }, token_endpoint: { type: 'string' }, response_types_supported: { type: 'array' } },
  required: ['issuer', 'token_endpoint', 'response_types_supported'],
  additionalProperties: true,
} as const;

/**
 * GET /.well-known/oauth-authorization-server (RFC 8414 section 3) and, with OpenID Connect on,
 * /.well-known/openid-configuration (Discovery 1.0 section 4): one document, built once from the config, with the
 * authorization_details types the registered resources serve (RFC 9396 section 10) read at each request, as an admin
 * may register one at any time.
 */
export const metadataRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const metadata = authorizationServerMetadata(deps.config);
  const paths = ['/.well-known/oauth-authorization-server', ...(deps.config.openid.enabled ? ['/.well-known/openid-configuration'] : [])];
  for (const path of paths) {
    app.get(path, { schema: { response: { 200: metadataSchema } } }, async (_request, reply) => {
      const types = await authorizationDetailsTypesSupported(deps);
      return reply
        .header('cache-control', 'public, max-age=3600')
        .send(types.length === 0 ? metadata : { ...metadata, authorization_details_types_supported: types });
    });
  }
};
