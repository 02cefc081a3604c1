import type { FastifyPluginAsync } from 'fastify';
import { extractClientCredentials } from '../../../oauth/client-credentials.js';
import { revokeToken } from '../../../oauth/revocation.js';
import { readOAuthParameters } from '../../hooks/read-oauth-parameters.js';
import { noStore } from '../../no-store.js';
import type { RouteOptions } from '../../route-options.js';
import { formBodySchema, oauthErrorResponses } from '../../schemas.js';

const bodySchema = formBodySchema({
  token: 'the access or refresh token to revoke',
  token_type_hint: 'access_token or refresh_token (where to look first)',
  client_id: 'client_secret_post or none',
  client_secret: 'client_secret_post',
});

/** POST /oauth/revoke (RFC 7009; SPEC 3.2). */
export const revokeRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/oauth/revoke',
    {
      schema: {
        body: bodySchema,
        response: { 200: { type: 'object', additionalProperties: false, description: 'Always {}' }, ...oauthErrorResponses },
      },
      preValidation: readOAuthParameters,
    },
    async (request, reply) => {
      const parameters = request.oauthParameters;
      const credentials = extractClientCredentials({ authorization: request.headers.authorization, body: parameters });
      const { revoked } = await revokeToken(deps, parameters, credentials);
      if (revoked) request.log.info({ event: 'token.revoked', clientId: credentials?.clientId, ...revoked }, 'token revoked');
      return noStore(reply).send({});
    },
  );
};
