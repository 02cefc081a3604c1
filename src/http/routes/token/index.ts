import type { FastifyPluginAsync } from 'fastify';
import { readOAuthParameters } from '../../hooks/read-oauth-parameters.js';
import type { RouteOptions } from '../../route-options.js';
import { formBodySchema, oauthErrorResponses } from '../../schemas.js';

const bodySchema = formBodySchema({
  grant_type:
    'authorization_code, client_credentials, password, refresh_token, urn:ietf:params:oauth:grant-type:device_code, urn:ietf:params:oauth:grant-type:jwt-bearer or urn:ietf:params:oauth:grant-type:token-exchange',
  code: 'authorization_code: the code',
  redirect_uri: 'authorization_code: the redirect URI of the authorization request',
  code_verifier: 'authorization_code: the PKCE verifier (RFC 7636)',
  refresh_token: 'refresh_token: the refresh token',
  device_code: 'the device grant (RFC 8628): the device code of POST /oauth/device_authorization',
  assertion: 'the JWT bearer grant (RFC 7523): the signed assertion of a trusted issuer',
  subject_token: 'token exchange (RFC 8693): the token of the party the new token is for',
  subject_token_type: 'token exchange: urn:ietf:params:oauth:token-type:access_token, id_token or jwt',
  actor_token: 'token exchange: an access token of this client, who acts (delegation)',
  actor_token_type: 'token exchange: urn:ietf:params:oauth:token-type:access_token',
  requested_token_type: 'token exchange: urn:ietf:params:oauth:token-type:access_token (default) or id-jag',
  audience: 'token exchange: a registered resource, or for an ID-JAG the downstream authorization server',
  username: 'password: the user name',
  password: 'password: the password',
  scope: 'client_credentials, password, refresh_token, jwt-bearer, token exchange: space-separated scopes',
  client_id: 'client_secret_post or none',
  client_secret: 'client_secret_post',
});

/** POST /oauth/token (RFC 6749 sections 4 and 6; SPEC 3.1): the `create` action of the `tokens` controller. */
export const tokenRoutes: FastifyPluginAsync<RouteOptions> = async (app, { controllers }) => {
  const controller = controllers.tokens;
  app.post(
    '/oauth/token',
    {
      schema: { body: bodySchema, response: { 200: { $ref: 'tokenResponse#' }, ...oauthErrorResponses } },
      preValidation: readOAuthParameters,
    },
    (request, reply) => controller.create(request, reply),
  );
};
