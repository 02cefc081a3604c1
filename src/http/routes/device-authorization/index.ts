import type { FastifyPluginAsync } from 'fastify';
import { requestDeviceAuthorization } from '../../../oauth/device/device-authorization-request.js';
import { readOAuthParameters } from '../../hooks/read-oauth-parameters.js';
import { requestClientCredentials } from '../../request-client-credentials.js';
import { noStore } from '../../no-store.js';
import type { RouteOptions } from '../../route-options.js';
import { oauthErrorResponses, untypedFormBodySchema } from '../../schemas.js';

// Untyped: `resource` may be repeated (RFC 8707 section 2); readOAuthParameters judges every other repetition.
const bodySchema = untypedFormBodySchema({
  client_id: 'the client (client_secret_post or none)',
  client_secret: 'client_secret_post',
  scope: 'space-separated scopes; blank: the default scopes the client holds',
  resource: 'RFC 8707: an API the token is for (may be repeated)',
});

const responseSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'RFC 8628 section 3.2',
  properties: {
    device_code: { type: 'string' },
    user_code: { type: 'string', description: 'XXXX-XXXX, for the person to enter at verification_uri' },
    verification_uri: { type: 'string' },
    verification_uri_complete: { type: 'string' },
    expires_in: { type: 'integer' },
    interval: { type: 'integer' },
  },
  required: ['device_code', 'user_code', 'verification_uri', 'verification_uri_complete', 'expires_in', 'interval'],
} as const;

/** POST /oauth/device_authorization (RFC 8628 section 3.1), while grantFlows lists the device grant. */
export const deviceAuthorizationRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/oauth/device_authorization',
    { schema: { body: bodySchema, response: { 200: responseSchema, ...oauthErrorResponses } }, preValidation: readOAuthParameters },
    async (request, reply) => {
      const parameters = request.oauthParameters;
      // A client assertion's aud may name this endpoint, as at revocation, introspection and PAR.
      const credentials = requestClientCredentials(request, '/oauth/device_authorization');
      const response = await requestDeviceAuthorization(deps, parameters, credentials);
      request.log.info({ event: 'device_authorization.started', clientId: credentials?.clientId }, 'device authorization started');
      // Section 3.2: the response carries the device code, a credential: no cache may keep it.
      return noStore(reply).send(response);
    },
  );
};
