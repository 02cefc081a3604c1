import type { AuthorizationResult } from './authorization-approval.js';
import type { AuthorizationFailure, AuthorizationRequest, ErrorRedirect } from './authorization-request.js';
import type { OAuthError } from '../errors.js';
import { buildRedirectUrl, isOutOfBand } from './redirect-uri.js';
import type { TokenSigner } from '../keys/token-signer.js';
import { expiresInSeconds } from '../tokens/token-issuer.js';

// How an authorization response, success or error, reaches the client (reference 4.5 and 15.4). The HTTP layer
// turns each kind into a response; nothing here knows about HTTP.

export type AuthorizationDelivery =
  /** A redirect to the verified redirect URI with the parameters in its query or fragment. */
  | { kind: 'redirect'; location: string }
  /** OAuth 2.0 Form Post Response Mode: an auto-submitting form to the redirect URI. */
  | { kind: 'form_post'; action: string; fields: Array<[string, string]> }
  /** Out-of-band redirect URI: the code is shown on our own page (reference 4.7). */
  | { kind: 'native'; code: string }
  /** An error shown to the resource owner, never sent anywhere (RFC 6749 section 4.1.2.1). */
  | { kind: 'page'; error: OAuthError };

export type ResponseParameters = Record<string, string | undefined>;

/** The success parameters: RFC 6749 sections 4.1.2 and 4.2.2, plus `iss` (RFC 9207 section 2). */
export function successParameters(
  request: AuthorizationRequest,
  result: AuthorizationResult,
  issuer: string,
  now: Date,
): ResponseParameters {
  if (result.responseType === 'code') return { code: result.code, state: request.state, iss: issuer };
  const expiresIn = expiresInSeconds(result.issued.record, now);
  // Reference 4.5: no scope and no refresh token in an implicit response; but RFC 6749 section 4.2.2 requires the
  // scope when it differs from the request's, as it does when offline_access was ignored (OpenID Connect Core 11).
  return {
    access_token: result.issued.accessToken,
    token_type: 'Bearer',
    expires_in: expiresIn === null ? undefined : String(expiresIn),
    scope: request.scopes.length === request.askedScopes.length ? undefined : request.scopes.join(' '),
    state: request.state,
    iss: issuer,
  };
}

/** What signs a JWT-secured response (JARM): the service's token signer. */
export type ResponseSigner = Pick<TokenSigner, 'sign'>;

/** How the response is answered: the issuer's name, its clock, and its signer for the `.jwt` modes. */
export interface ResponseIssuer {
  issuer: string;
  now: Date;
  signer: ResponseSigner;
}

export function successDelivery(
  request: AuthorizationRequest,
  result: AuthorizationResult,
  from: ResponseIssuer,
): Promise<AuthorizationDelivery> {
  if (result.responseType === 'code' && isOutOfBand(request.redirectUri)) return Promise.resolve({ kind: 'native', code: result.code });
  const parameters = successParameters(request, result, from.issuer, from.now);
  return deliver(
    {
      redirectUri: request.redirectUri,
      responseMode: request.responseMode,
      clientId: request.application.uid,
      signingAlg: request.responseSigningAlg,
    },
    parameters,
    from,
  );
}

/** RFC 6749 section 4.1.2.1: error, error_description, state, and iss (RFC 9207) when the redirect URI is verified. */
export function errorDelivery(failure: AuthorizationFailure, from: ResponseIssuer): Promise<AuthorizationDelivery> {
  if (failure.redirect === null) return Promise.resolve({ kind: 'page', error: failure.error });
  const parameters = {
    error: failure.error.code,
    error_description: failure.error.description,
    state: failure.redirect.state,
    iss: from.issuer,
  };
  return deliver(failure.redirect, parameters, from);
}

// JARM section 4.1: a response JWT lives briefly, as the code it carries does; 10 minutes is the spec's own example.
const RESPONSE_JWT_SECONDS = 600;

async function deliver(
  to: Pick<ErrorRedirect, 'redirectUri' | 'responseMode' | 'clientId' | 'signingAlg'>,
  parameters: ResponseParameters,
  from: ResponseIssuer,
): Promise<AuthorizationDelivery> {
  const { redirectUri, responseMode } = to;
  const secured = responseMode.endsWith('.jwt');
  const mode = responseMode.replace(/\.jwt$/, '') as 'query' | 'fragment' | 'form_post';
  // JARM section 4.1: the parameters become the claims of one signed JWT for the client, with iss, aud and exp (the
  // iss of RFC 9207 is then the JWT's own), sent as the single `response` parameter.
  const sent = secured ? { response: await signedResponse(to, parameters, from) } : parameters;
  if (mode === 'form_post') {
    const fields = Object.entries(sent).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '');
    return { kind: 'form_post', action: redirectUri, fields };
  }
  return { kind: 'redirect', location: buildRedirectUrl(redirectUri, sent, mode) };
}

// JARM section 3: signed with the client's authorization_signed_response_alg, or its profile's default
// (signingAlgorithmFor); the signer makes a key of it on first use.
function signedResponse(
  { clientId, signingAlg }: Pick<ErrorRedirect, 'clientId' | 'signingAlg'>,
  parameters: ResponseParameters,
  { issuer, now, signer }: ResponseIssuer,
): Promise<string> {
  const claims = Object.fromEntries(
    Object.entries(parameters).filter(([name, value]) => name !== 'iss' && value !== undefined && value !== ''),
  );
  const payload = { ...claims, iss: issuer, aud: clientId, exp: Math.floor(now.getTime() / 1000) + RESPONSE_JWT_SECONDS };
  return signer.sign(payload, { alg: signingAlg ?? 'RS256' });
}
