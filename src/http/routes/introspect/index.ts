import type { FastifyPluginAsync } from 'fastify';
import { readOAuthParameters } from '../../hooks/read-oauth-parameters.js';
import type { RouteOptions } from '../../route-options.js';
import { formBodySchema, oauthErrorResponses } from '../../schemas.js';

const bodySchema = formBodySchema({
  token: 'the token to introspect',
  token_type_hint: 'access_token or refresh_token (where to look first)',
});

/**
 * POST /oauth/introspect (RFC 7662; the seed; SPEC 3.3): the `introspect` action of the `tokens` controller.
 * Registered only when introspection.enabled. With openid.enabled, an `Accept` naming
 * application/token-introspection+jwt gets the answer as a signed JWT of that type (RFC 9701), sent as a string
 * past the JSON schema below; errors stay JSON.
 */
export const introspectRoutes: FastifyPluginAsync<RouteOptions> = async (app, { controllers }) => {
  const controller = controllers.tokens;
  app.post(
    '/oauth/introspect',
    {
      schema: { body: bodySchema, response: { 200: { $ref: 'introspectionResponse#' }, ...oauthErrorResponses } },
      preValidation: readOAuthParameters,
    },
    (request, reply) => controller.introspect(request, reply),
  );
};
