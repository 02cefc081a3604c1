import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { checkDpopProof, refuseReplayedDpopProof } from '../../../oauth/tokens/dpop/dpop-proof.js';
import {
  InsufficientScope,
  InvalidDpopProof,
  InvalidRequest,
  InvalidToken,
  OAuthError,
  ResourceDpopRefusal,
  UseDpopNonce,
} from '../../../oauth/errors.js';
import { readParameters } from '../../../oauth/request-parameters.js';
import { presentedAccessToken, userinfoResponse } from '../../../oauth/openid/userinfo.js';
import { headerSafe, wwwAuthenticateValue } from '../../error-response.js';
import { noStore } from '../../no-store.js';
import type { RouteOptions } from '../../route-options.js';
import { oauthErrorResponses } from '../../schemas.js';

const claimsSchema = {
  type: 'object',
  description: 'OpenID Connect Core 5.3.2: sub and the claims the scopes grant (application/jwt instead when signed).',
  properties: { sub: { type: 'string' } },
  required: ['sub'],
  additionalProperties: true,
} as const;

// No `type` (a POST with the token in the header may have no body at all: oidcc-userinfo-post-header), hence no
// `properties` either (Ajv's strict mode wants a type beside them): formAccessToken reads the one field.
const bodySchema = {
  description:
    'A form body with access_token (RFC 6750 section 2.2) instead of the Authorization header, or no body when the token is in the header.',
};

/**
 * GET and POST /oauth/userinfo (OpenID Connect Core 1.0 section 5.3), registered only when openid.enabled. Not
 * behind the guard: the guard reads the Authorization header only, and Core 5.3.1 also allows the form body.
 */
export const userinfoRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  // The claims are personal data: never stored by a cache, and neither are the refusals (RFC 6750 section 5.3).
  app.addHook('onRequest', async (_request, reply) => void noStore(reply));

  const answer = async (request: FastifyRequest, reply: FastifyReply, bodyToken: () => string | undefined) => {
    const dpop = dpopCredential(request.headers.authorization);
    try {
      const accessToken = dpop ?? presentedAccessToken(request.headers.authorization, bodyToken());
      if (accessToken === null) throw new InvalidToken('missing');
      const proof = dpop === null ? null : await userinfoProof(request, accessToken);
      const response = await userinfoResponse(deps, accessToken, proof);
      if (response.kind === 'jwt') return reply.type('application/jwt').send(response.jwt);
      return reply.send(response.claims);
    } catch (error) {
      if (dpop !== null && error instanceof OAuthError) throw dpopRefusal(reply, error);
      // Section 7.2: a bound token sent as Bearer; both schemes are named, the error under DPoP, as token info's guard does.
      if (error instanceof InvalidToken && error.reason === 'dpop_bound')
        throw dpopRefusal(reply, error, `Bearer realm="${headerSafe(deps.config.realm)}", `);
      const challenge = error instanceof OAuthError ? bearerChallenge(deps.config.realm, error) : null;
      if (challenge !== null) reply.header('www-authenticate', challenge);
      throw error;
    }
  };

  // RFC 9449 section 7.1: a request made with the DPoP scheme is refused with the DPoP challenge, naming the error and
  // the proof algorithms accepted; a bad proof and a missing nonce are 401 here, as at any protected resource (the
  // token info's guard answers the same), with the nonce to use (section 9).
  const dpopRefusal = (reply: FastifyReply, error: OAuthError, bearer = ''): OAuthError => {
    const scope = error instanceof InsufficientScope ? `, scope="${headerSafe(error.scopes.join(' '))}"` : '';
    const algorithms = `algs="${headerSafe(deps.config.dpop.algorithms.join(' '))}"`;
    // The challenge says what the body says (the resource server's words for a missing nonce).
    const refusal = error instanceof InvalidDpopProof || error instanceof UseDpopNonce ? new ResourceDpopRefusal(error) : error;
    reply.header('www-authenticate', `${bearer}${wwwAuthenticateValue(deps.config.realm, refusal, 'DPoP')}${scope}, ${algorithms}`);
    if (error instanceof UseDpopNonce) reply.header('dpop-nonce', error.nonce);
    return refusal;
  };

  // The request's DPoP proof for this URL and token (RFC 9449 section 7), checked, a replay included; a bad proof is
  // invalid_dpop_proof. userinfoResponse records it against replay once the request is otherwise accepted.
  const userinfoProof = async (request: FastifyRequest, accessToken: string) => {
    const proof = request.headers.dpop;
    if (typeof proof !== 'string' || proof.trim() === '') throw new InvalidDpopProof('Send exactly one DPoP proof.');
    const url = `${deps.config.baseUrl.replace(/\/+$/, '')}/oauth/userinfo`;
    const checked = await checkDpopProof(deps, proof.trim(), { method: request.method, url, accessToken });
    await refuseReplayedDpopProof(deps, checked);
    return checked;
  };

  const schema = { response: { 200: claimsSchema, ...oauthErrorResponses } };
  app.get('/oauth/userinfo', { schema }, (request, reply) => answer(request, reply, () => undefined));
  app.post('/oauth/userinfo', { schema: { ...schema, body: bodySchema } }, (request, reply) =>
    answer(request, reply, () => formAccessToken(request)),
  );
};

/** RFC 9449 section 7.1: `Authorization: DPoP <token>`; null for any other scheme. */
function dpopCredential(authorization: string | undefined): string | null {
  const match = /^dpop +([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization?.trim() ?? '');
  return match?.[1] ?? null;
}

/**
 * RFC 6750 section 2.2: the body method needs a form-encoded body; any other body carries no token. A repeated
 * or nested parameter is invalid_request, as everywhere in the API group.
 */
function formAccessToken(request: FastifyRequest): string | undefined {
  const mediaType = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType !== 'application/x-www-form-urlencoded') return undefined;
  return readParameters(request.body, undefined).access_token;
}

/**
 * RFC 6750 section 3: the challenge of a refusal; insufficient_scope names the scope that would do (section 3). The
 * app-wide error handler keeps a challenge the route has set, and makes the one without an error code of a request
 * that sent no token (section 3.1).
 */
function bearerChallenge(realm: string, error: OAuthError): string | null {
  if (error instanceof InvalidToken && error.reason === 'missing') return null;
  if (error instanceof InsufficientScope) return `${wwwAuthenticateValue(realm, error)}, scope="${headerSafe(error.scopes.join(' '))}"`;
  if (error instanceof InvalidToken || error instanceof InvalidRequest) return wwwAuthenticateValue(realm, error);
  return null;
}
