import type { GrantFlow } from '../../config/types.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidClient, UnsupportedGrantType } from '../errors.js';
import { ApplicationGone } from '../store.js';
import type { TokenResponseBody } from '../hooks.js';
import { requireParameter } from '../request-parameters.js';
import { tokenResponseBody } from '../tokens/token-issuer.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import { deviceCodeGrant } from './device-code.js';
import { jwtBearerGrant } from './jwt-bearer.js';
import type { GrantHandler, GrantRequest, GrantResult, IssuedAssertion } from './grant.js';
import { passwordGrant } from './password.js';
import { refreshTokenGrant } from './refresh-token.js';
import { hookedTokenResponse } from './token-response-hook.js';
import { tokenExchangeGrant } from './token-exchange.js';

/** The one map from grant_type to handler (STYLE). `implicit` has no grant type: it is not a token request. */
export const GRANT_HANDLERS: Partial<Record<GrantFlow, GrantHandler>> = {
  authorization_code: authorizationCodeGrant,
  client_credentials: clientCredentialsGrant,
  password: passwordGrant,
  refresh_token: refreshTokenGrant,
  'urn:ietf:params:oauth:grant-type:device_code': deviceCodeGrant,
  'urn:ietf:params:oauth:grant-type:jwt-bearer': jwtBearerGrant,
  'urn:ietf:params:oauth:grant-type:token-exchange': tokenExchangeGrant,
};

/** POST /oauth/token (reference 5.1): grant type first, before any client authentication. */
export async function handleTokenRequest(deps: OAuthDeps, request: GrantRequest): Promise<TokenResponseBody | IssuedAssertion['body']> {
  const grantType = requireParameter(request.parameters, 'grant_type');
  // Enabled in the config and handled here (`implicit` is a flow without a grant type).
  const handler = deps.config.grantFlows.includes(grantType as GrantFlow) ? GRANT_HANDLERS[grantType as GrantFlow] : undefined;
  if (!handler) throw new UnsupportedGrantType();
  const result = await issuedBy(handler, deps, request);
  const { application } = result;
  // Issue 19: the first token marks the client used (self-registered clients never used are cleaned up). Once
  // per client; a cached record may still say unused for a moment, and the conditional UPDATE then changes nothing.
  if (application && application.usedAt === null) await deps.stores.applications.markUsed(application.id, deps.now());
  // No stored token for the beforeTokenResponse hook to see: the body goes as the grant made it.
  if ('body' in result) return result.body;
  const { issued, idToken = null, issuedTokenType } = result;
  const body = {
    ...tokenResponseBody(issued, deps.now()),
    ...(idToken !== null && { id_token: idToken }),
    ...(issuedTokenType !== undefined && { issued_token_type: issuedTokenType }),
  };
  return hookedTokenResponse(deps, body, { grantType, application, token: issued.record });
}

/**
 * The handler's result; an application deleted after this instance read it (its cache, for up to ttlMs) is an
 * unknown client (RFC 6749 section 5.2 invalid_client) rather than a failed INSERT.
 */
async function issuedBy(handler: GrantHandler, deps: OAuthDeps, request: GrantRequest): Promise<GrantResult | IssuedAssertion> {
  try {
    return await handler(deps, request);
  } catch (error) {
    if (error instanceof ApplicationGone) throw new InvalidClient({ triedBasic: request.credentials?.method === 'client_secret_basic' });
    throw error;
  }
}
