import type { FastifyPluginAsync } from 'fastify';
import { readOAuthParameters } from '../../hooks/read-oauth-parameters.js';
import type { RouteOptions } from '../../route-options.js';
import { formBodySchema, oauthErrorResponses } from '../../schemas.js';

const bodySchema = formBodySchema({
  token: 'the access or refresh token to revoke',
  token_type_hint: 'access_token or refresh_token (where to look first)',
  client_id: 'client_secret_post or none',
  client_secret: 'client_secret_post',
});

/** POST /oauth/revoke (RFC 7009; SPEC 3.2): the `revoke` action of the `tokens` controller. */
export const revokeRoutes: FastifyPluginAsync<RouteOptions> = async (app, { controllers }) => {
  const controller = controllers.tokens;
  app.post(
    '/oauth/revoke',
    {
      schema: {
        body: bodySchema,
        response: { 200: { type: 'object', additionalProperties: false, description: 'Always {}' }, ...oauthErrorResponses },
      },
      preValidation: readOAuthParameters,
    },
    (request, reply) => controller.revoke(request, reply),
  );
};
