import type { FastifyPluginAsync } from 'fastify';
import { extractClientCredentials } from '../../../oauth/client-credentials.js';
import { handleTokenRequest } from '../../../oauth/grants/index.js';
import { readOAuthParameters } from '../../hooks/read-oauth-parameters.js';
import { noStore } from '../../no-store.js';
import type { RouteOptions } from '../../route-options.js';
import { formBodySchema, oauthErrorResponses } from '../../schemas.js';

const bodySchema = formBodySchema({
  grant_type: 'authorization_code, client_credentials, password or refresh_token',
  code: 'authorization_code: the code',
  redirect_uri: 'authorization_code: the redirect URI of the authorization request',
  code_verifier: 'authorization_code: the PKCE verifier (RFC 7636)',
  refresh_token: 'refresh_token: the refresh token',
  username: 'password: the user name',
  password: 'password: the password',
  scope: 'client_credentials, password, refresh_token: space-separated scopes',
  client_id: 'client_secret_post or none',
  client_secret: 'client_secret_post',
});

/** POST /oauth/token (RFC 6749 sections 4 and 6; SPEC 3.1). */
export const tokenRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/oauth/token',
    {
      schema: { body: bodySchema, response: { 200: { $ref: 'tokenResponse#' }, ...oauthErrorResponses } },
      preValidation: readOAuthParameters,
    },
    async (request, reply) => {
      const parameters = request.oauthParameters;
      const credentials = extractClientCredentials({ authorization: request.headers.authorization, body: parameters });
      const body = await handleTokenRequest(deps, { parameters, credentials });
      app.metrics.tokensIssued(parameters.grant_type!);
      request.log.info({ event: 'token.issued', grantType: parameters.grant_type, clientId: credentials?.clientId }, 'token issued');
      return noStore(reply).send(body);
    },
  );
};
