import type { FastifyPluginAsync } from 'fastify';
import { pushAuthorizationRequest } from '../../../oauth/authorization/push-authorization-request.js';
import { tokenRequestDpopProof } from '../../../oauth/tokens/dpop/dpop-proof.js';
import { readOAuthParameters } from '../../hooks/read-oauth-parameters.js';
import { noStore } from '../../no-store.js';
import { requestClientCredentials } from '../../request-client-credentials.js';
import type { RouteOptions } from '../../route-options.js';
import { oauthErrorResponses, untypedFormBodySchema } from '../../schemas.js';

export const PAR_PATH = '/oauth/par';

// As at /oauth/authorize, whose rules judge these: untyped, so a repeated resource (RFC 8707) or state reaches them.
const bodySchema = untypedFormBodySchema({
  client_id: 'the client (client_secret_post or none; optional with Basic or a client assertion)',
  client_secret: 'client_secret_post',
  client_assertion: 'private_key_jwt or client_secret_jwt (aud: the issuer, the token endpoint or this endpoint)',
  client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
  response_type: 'as at /oauth/authorize: code, or token when the implicit flow is enabled',
  redirect_uri: 'as at /oauth/authorize; may be left out by a client with exactly one registered',
  scope: 'as at /oauth/authorize',
  state: 'as at /oauth/authorize',
  code_challenge: 'as at /oauth/authorize (RFC 7636)',
  code_challenge_method: 'as at /oauth/authorize',
  dpop_jkt: 'RFC 9449 section 10: the thumbprint of the key the code exchange must prove (a DPoP header does the same)',
  resource: 'RFC 8707: an API the token is for (may be repeated)',
  request:
    "RFC 9101: the request as a JWT signed with one of the client's registered keys, verified when pushed; its claims are the request",
  response_mode: 'as at /oauth/authorize (JARM modes with OpenID Connect on)',
  nonce: 'OpenID Connect, as at /oauth/authorize',
  prompt: 'OpenID Connect, as at /oauth/authorize',
  max_age: 'OpenID Connect, as at /oauth/authorize',
  login_hint: 'OpenID Connect, as at /oauth/authorize',
  id_token_hint: 'OpenID Connect, as at /oauth/authorize',
  acr_values: 'OpenID Connect, as at /oauth/authorize',
  ui_locales: 'OpenID Connect, as at /oauth/authorize',
  claims: 'OpenID Connect, as at /oauth/authorize',
  authorization_details: 'RFC 9396, as at /oauth/authorize',
});

const responseSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'RFC 9126 section 2.2',
  properties: {
    request_uri: { type: 'string', description: 'urn:ietf:params:oauth:request_uri:<random>, for /oauth/authorize' },
    expires_in: { type: 'integer', description: 'Seconds the request_uri waits for the authorization request that uses it.' },
  },
  required: ['request_uri', 'expires_in'],
} as const;

/** POST /oauth/par (RFC 9126 section 2), while the authorization endpoint is served. */
export const parRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.post(
    PAR_PATH,
    { schema: { body: bodySchema, response: { 201: responseSchema, ...oauthErrorResponses } }, preValidation: readOAuthParameters },
    async (request, reply) => {
      const parameters = request.oauthParameters;
      const credentials = requestClientCredentials(request, PAR_PATH);
      // RFC 9449 section 10.1: the proof is checked first; its replay check and record wait for the client and the request.
      const dpopProof = await tokenRequestDpopProof(deps, request.headers.dpop, PAR_PATH);
      const response = await pushAuthorizationRequest(deps, { parameters, credentials, dpopProof });
      request.log.info(
        { event: 'authorization.pushed', clientId: credentials?.clientId, dpopBound: dpopProof !== null },
        'authorization request pushed',
      );
      // Section 2.2: 201 Created; the request_uri stands for the request until used, so no cache may keep it.
      return noStore(reply).code(201).send(response);
    },
  );
};
