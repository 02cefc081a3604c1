import type { AuthorizationResult } from './authorization-approval.js';
import type { ResponseMode } from './authorization-parameters.js';
import type { AuthorizationFailure, AuthorizationRequest } from './authorization-request.js';
import type { OAuthError } from '../errors.js';
import { buildRedirectUrl, isOutOfBand } from './redirect-uri.js';
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

export function successDelivery(
  request: AuthorizationRequest,
  result: AuthorizationResult,
  issuer: string,
  now: Date,
): AuthorizationDelivery {
  if (result.responseType === 'code' && isOutOfBand(request.redirectUri)) return { kind: 'native', code: result.code };
  return deliver(request.redirectUri, request.responseMode, successParameters(request, result, issuer, now));
}

/** RFC 6749 section 4.1.2.1: error, error_description, state, and iss (RFC 9207) when the redirect URI is verified. */
export function errorDelivery(failure: AuthorizationFailure, issuer: string): AuthorizationDelivery {
  if (failure.redirect === null) return { kind: 'page', error: failure.error };
  const { redirectUri, responseMode, state } = failure.redirect;
  return deliver(redirectUri, responseMode, {
    error: failure.error.code,
    error_description: failure.error.description,
    state,
    iss: issuer,
  });
}

function deliver(redirectUri: string, mode: ResponseMode, parameters: ResponseParameters): AuthorizationDelivery {
  if (mode === 'form_post') {
    const fields = Object.entries(parameters).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '');
    return { kind: 'form_post', action: redirectUri, fields };
  }
  return { kind: 'redirect', location: buildRedirectUrl(redirectUri, parameters, mode) };
}
