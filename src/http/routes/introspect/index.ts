import type { FastifyPluginAsync } from 'fastify';
import { OAuthError } from '../../../oauth/errors.js';
import { introspect } from '../../../oauth/introspection.js';
import { introspectionRules } from '../../../oauth/introspection-policy.js';
import { readOAuthParameters } from '../../hooks/read-oauth-parameters.js';
import { noStore } from '../../no-store.js';
import type { RouteOptions } from '../../route-options.js';
import { formBodySchema, oauthErrorResponses } from '../../schemas.js';

const bodySchema = formBodySchema({
  token: 'the token to introspect',
  token_type_hint: 'access_token or refresh_token (where to look first)',
});

/** POST /oauth/introspect (RFC 7662; the seed; SPEC 3.3). Registered only when introspection.enabled. */
export const introspectRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const rules = introspectionRules(deps.config.introspection.allow);
  app.post(
    '/oauth/introspect',
    {
      schema: { body: bodySchema, response: { 200: { $ref: 'introspectionResponse#' }, ...oauthErrorResponses } },
      preValidation: readOAuthParameters,
    },
    async (request, reply) => {
      try {
        const response = await introspect(deps, rules, { parameters: request.oauthParameters, authorization: request.headers.authorization });
        app.metrics.introspection(response.active ? 'active' : 'inactive');
        return noStore(reply).send(response);
      } catch (error) {
        if (error instanceof OAuthError) {
          app.metrics.introspection('refused');
          request.log.info({ event: 'introspection.refused', error: error.code }, 'introspection refused');
        }
        throw error;
      }
    },
  );
};
