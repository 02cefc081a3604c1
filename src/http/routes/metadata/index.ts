import type { FastifyPluginAsync } from 'fastify';
import { authorizationDetailsTypesSupported } from '../../../oauth/resources/authorization-details.js';
import { authorizationServerMetadata, isOpenIdProvider } from '../../../oauth/server-metadata.js';
import { publicDocumentPreflight } from '../../plugins/cors.js';
import { publicBasePath } from '../../public-base-path.js';
import type { RouteOptions } from '../../route-options.js';

type OAuthDepsConfig = RouteOptions['deps']['config'];

const metadataSchema = {
  type: 'object',
  properties: { issuer: { type: 'string' }, token_endpoint: { type: 'string' }, response_types_supported: { type: 'array' } },
  required: ['issuer', 'token_endpoint', 'response_types_supported'],
  additionalProperties: true,
} as const;

// RFC 9396 section 10's types come from the resources, which an admin may change at any time: read again at most this
// often, and while the database cannot be read the last list read is served (discovery never failed with it before).
const TYPES_TTL_MS = 10_000;

/**
 * Where the metadata is served. An issuer with a path (https://auth.example/tenant, the service behind a proxy that
 * strips /tenant) has its document at the issuer plus the well-known suffix, which arrives here as the suffix alone,
 * and also where RFC 8414 section 3.1 puts it, the suffix inserted before the path
 * (/.well-known/oauth-authorization-server/tenant), which a proxy routes here as it is: the MCP SDK and other RFC 8414
 * clients look there first. The OpenID Connect document likewise, in both forms the MCP SDK tries.
 */
export function metadataPaths(config: OAuthDepsConfig): string[] {
  const suffixes = ['/.well-known/oauth-authorization-server', ...(isOpenIdProvider(config) ? ['/.well-known/openid-configuration'] : [])];
  const issuerPath = publicBasePath(config.baseUrl);
  return issuerPath === '' ? suffixes : [...suffixes, ...suffixes.map((suffix) => `${suffix}${issuerPath}`)];
}

/**
 * GET /.well-known/oauth-authorization-server (RFC 8414 section 3) and, with OpenID Connect on,
 * /.well-known/openid-configuration (Discovery 1.0 section 4): one document, built once from the config, with the
 * authorization_details types the registered resources serve (RFC 9396 section 10).
 */
export const metadataRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const metadata = authorizationServerMetadata(deps.config);
  let types: { list: string[]; readAt: number } = { list: [], readAt: -Infinity };
  const currentTypes = async (now: number): Promise<string[]> => {
    if (now - types.readAt < TYPES_TTL_MS) return types.list;
    try {
      types = { list: await authorizationDetailsTypesSupported(deps), readAt: now };
    } catch (error) {
      app.log.warn({ err: error }, 'metadata: the authorization_details types could not be read; serving the last ones read');
    }
    return types.list;
  };
  for (const path of metadataPaths(deps.config)) {
    app.get(path, { config: { publicDocument: true }, schema: { response: { 200: metadataSchema } } }, async (_request, reply) => {
      const supported = await currentTypes(deps.now().getTime());
      return reply
        .header('cache-control', 'public, max-age=3600')
        .send(supported.length === 0 ? metadata : { ...metadata, authorization_details_types_supported: supported });
    });
    app.options(path, publicDocumentPreflight);
  }
};
