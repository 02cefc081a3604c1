// The catalogue of every error the service answers with: one class per OAuth error code (RFC 6749 section 5.2
// and 4.1.2.1, RFC 6750 section 3.1, RFC 7009 section 2.2.1); the HTTP-level refusals that share its JSON shape are
// in http-refusals.ts, the base class in oauth-error.ts and invalid_request in invalid-request.ts, all re-exported here. Each class carries the status
// actually sent and, where the client should wait, retryAfter.
// Descriptions are byte-exact copies of Doorkeeper 5.9.5's English texts (reference section 2.4) so that clients
// written against Doorkeeper keep matching them. http/error-response.ts turns these into responses; nothing else
// builds error bodies.

import { InvalidRequest } from './invalid-request.js';
import { OAuthError } from './oauth-error.js';

export { OAuthError, type OAuthErrorBody, type OAuthErrorOptions } from './oauth-error.js';
export * from './http-refusals.js';
export { GENERIC_INVALID_REQUEST, InvalidRequest } from './invalid-request.js';

const SERVER_ERROR_TEXT = 'The authorization server encountered an unexpected condition which prevented it from fulfilling the request.';

export class InvalidRedirectUri extends OAuthError {
  /** `description` replaces Doorkeeper's text where this service can say more (a metadata document's list). */
  constructor(description = "The requested redirect URI is malformed or doesn't match the client redirect URI.") {
    super('invalid_redirect_uri', 400, description);
  }
}

// RFC 6749 section 5.2 lists only invalid_client as 401; Doorkeeper's 401 here is a deviation (SPEC 8).
export class UnauthorizedClient extends OAuthError {
  constructor(description = 'The client is not authorized to perform this request using this method.') {
    super('unauthorized_client', 400, description);
  }
}

export class AccessDenied extends OAuthError {
  /** `description` replaces Doorkeeper's text where the server, not the resource owner, refused (OpenID Connect Core 5.5.1.1). */
  constructor(description = 'The resource owner or authorization server denied the request.') {
    super('access_denied', 400, description);
  }
}

// OpenID Connect Core 3.1.2.6: prompt=none asked for an answer without any page, and one is needed.
export class LoginRequired extends OAuthError {
  constructor(description = 'The authorization server requires end-user authentication.') {
    super('login_required', 400, description);
  }
}

// OpenID Connect Core 5.5.1.1 (errata; RFC 9470 section 4): acr asked for as essential with values this server cannot
// reach. A failed authentication that no sign-in here would turn into a success, so no one is asked to sign in.
export class UnmetAuthenticationRequirements extends OAuthError {
  constructor(description = 'The authorization server cannot meet the authentication requirements of the request.') {
    super('unmet_authentication_requirements', 400, description);
  }
}

export class ConsentRequired extends OAuthError {
  constructor() {
    super('consent_required', 400, 'The authorization server requires end-user consent.');
  }
}

export class InteractionRequired extends OAuthError {
  constructor() {
    super('interaction_required', 400, 'The authorization server requires end-user interaction of some form to proceed.');
  }
}

// RFC 8707 section 2: a resource that is malformed, unknown, or that does not accept the requested scopes.
export class InvalidTarget extends OAuthError {
  constructor(description = 'The requested resource is invalid, missing, unknown, or malformed.') {
    super('invalid_target', 400, description);
  }
}

// RFC 9396 section 5: authorization_details that are malformed, of a type no resource serves, or failing its schema.
export class InvalidAuthorizationDetails extends OAuthError {
  constructor(description: string) {
    super('invalid_authorization_details', 400, description);
  }
}

// OpenID Connect Core 6.1 and 6.2: a client without registered keys cannot sign a request object, and asking is an error.
export class RequestNotSupported extends OAuthError {
  constructor(description = 'The request parameter (a request object) is not supported.') {
    super('request_not_supported', 400, description);
  }
}

// RFC 9101 section 7 (and Core 6.1): the request object's signature or claims are not what they must be.
export class InvalidRequestObject extends OAuthError {
  constructor(description: string) {
    super('invalid_request_object', 400, description);
  }
}

export class RequestUriNotSupported extends OAuthError {
  constructor() {
    super('request_uri_not_supported', 400, 'The request_uri parameter is not supported.');
  }
}

// OpenID Connect Core 3.1.2.6: the registration parameter (Core 7.2.1, a Self-Issued OP's) is not supported here.
export class RegistrationNotSupported extends OAuthError {
  constructor() {
    super('registration_not_supported', 400, 'The registration parameter is not supported.');
  }
}

// RFC 9126 section 4 (the code of RFC 9101 section 10.2): a pushed request's request_uri that is unknown, another
// client's, expired or used already. Shown on the error page: the redirect_uri it would name cannot be trusted.
export class InvalidRequestUri extends OAuthError {
  constructor(description: string) {
    super('invalid_request_uri', 400, description);
  }
}

// RFC 9449 section 4.3 and 5: a DPoP proof that is malformed, for another request, replayed, or missing where
// the client or the token needs one.
export class InvalidDpopProof extends OAuthError {
  constructor(description: string) {
    super('invalid_dpop_proof', 400, description);
  }
}

// RFC 9449 section 8: the proof must carry the server's nonce, which the DPoP-Nonce header of this answer gives.
export class UseDpopNonce extends OAuthError {
  constructor(readonly nonce: string) {
    super('use_dpop_nonce', 400, 'Authorization server requires nonce in DPoP proof.');
  }
}

/**
 * RFC 9449 sections 7.1 and 9: a protected resource (UserInfo) refuses a DPoP proof, or asks for its nonce, with 401
 * and a DPoP challenge; the authorization server's endpoints answer the same codes with 400 (sections 5 and 8).
 */
export class ResourceDpopRefusal extends OAuthError {
  constructor(refused: InvalidDpopProof | UseDpopNonce) {
    super(refused.code, 401, refused instanceof UseDpopNonce ? 'Resource server requires nonce in DPoP proof.' : refused.description);
  }
}

export class InvalidScope extends OAuthError {
  constructor() {
    super('invalid_scope', 400, 'The requested scope is invalid, unknown, or malformed.');
  }
}

// An unexpected failure (a bug): 500. The cause is for the log only; the client always sees the fixed text.
export class ServerError extends OAuthError {
  constructor(options?: ErrorOptions) {
    super('server_error', 500, SERVER_ERROR_TEXT, options);
  }
}

// The database is unreachable: 503, and a retry in a few seconds may succeed (RFC 9110 section 15.6.4).
export class TemporarilyUnavailable extends OAuthError {
  constructor(options?: ErrorOptions) {
    super(
      'temporarily_unavailable',
      503,
      'The authorization server is currently unable to handle the request due to a temporary overloading or maintenance of the server.',
      { ...options, retryAfter: 5 },
    );
  }
}

/** 429 for a client, user or address locked out after failed authentication, or over its request budget. */
export class TooManyRequests extends OAuthError {
  constructor(retryAfter: number, reason: string) {
    // RFC 6749 section 4.1.2.1's temporarily_unavailable is the standard code closest to "back off".
    super('temporarily_unavailable', 429, `${reason} Retry after ${retryAfter} seconds.`, { retryAfter });
  }
}

export class UnsupportedResponseType extends OAuthError {
  constructor() {
    super('unsupported_response_type', 400, 'The authorization server does not support this response type.');
  }
}

export class UnsupportedResponseMode extends OAuthError {
  constructor() {
    super('unsupported_response_mode', 400, 'The authorization server does not support this response mode.');
  }
}

// RFC 6749 section 5.2: 401, and a WWW-Authenticate matching the scheme the client used; triedBasic tells the
// HTTP layer whether to answer with a Basic challenge.
export class InvalidClient extends OAuthError {
  readonly triedBasic: boolean;

  /** `description` replaces Doorkeeper's text only where this service refuses for its own reason (a disabled client). */
  constructor(options: { triedBasic?: boolean; description?: string } = {}) {
    super(
      'invalid_client',
      401,
      options.description ??
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    );
    this.triedBasic = options.triedBasic ?? false;
  }
}

export class InvalidGrant extends OAuthError {
  /** `description` says which check failed where that helps the client and tells an attacker nothing (a JWT assertion's). */
  constructor(
    description = 'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  ) {
    super('invalid_grant', 400, description);
  }
}

// RFC 8628 section 3.5: the answers to a device code poll before a decision, or when the decision will not come.
export class AuthorizationPending extends OAuthError {
  constructor() {
    super(
      'authorization_pending',
      400,
      'The authorization request is still pending as the end user has not yet completed the user interaction steps.',
    );
  }
}

export class SlowDown extends OAuthError {
  constructor(interval = 5) {
    super(
      'slow_down',
      400,
      `The authorization request is still pending and polling should be slowed down: wait ${interval} seconds between requests.`,
    );
  }
}

export class ExpiredToken extends OAuthError {
  constructor() {
    super('expired_token', 400, 'The device_code has expired, and the device authorization session has concluded.');
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor() {
    super('unsupported_grant_type', 400, 'The authorization grant type is not supported by the authorization server.');
  }
}

/** `missing`: the request sent no token at all; its challenge then carries no error (RFC 6750 section 3.1). */
export type InvalidTokenReason = 'missing' | 'revoked' | 'expired' | 'unknown' | 'dpop_bound' | 'dpop_unbound' | 'dpop_key' | 'audience';

// The reference's texts have no trailing period; kept byte-exact. The DPoP ones (RFC 9449 section 7) are the guard's
// (packages/guard/src/guard-error.ts), so token info, UserInfo and introspection say the same.
const INVALID_TOKEN_TEXT: Record<InvalidTokenReason, string> = {
  missing: 'The access token is invalid',
  revoked: 'The access token was revoked',
  expired: 'The access token expired',
  unknown: 'The access token is invalid',
  dpop_bound: 'The access token is bound to a key and must be sent with the DPoP scheme and a proof',
  dpop_unbound: 'The access token is not bound to a key; send it with the Bearer scheme',
  dpop_key: 'The DPoP proof is not signed by the key the access token is bound to',
  audience: 'The access token is meant for another resource (its audience); this endpoint takes a token issued without one',
};

// RFC 6750 section 3.1: invalid_token is 401.
export class InvalidToken extends OAuthError {
  readonly reason: InvalidTokenReason;

  constructor(reason: InvalidTokenReason = 'unknown') {
    super('invalid_token', 401, INVALID_TOKEN_TEXT[reason] ?? INVALID_TOKEN_TEXT.unknown);
    this.reason = reason;
  }
}

// RFC 6750 section 3.1: insufficient_scope is 403.
export class InsufficientScope extends OAuthError {
  readonly scopes: readonly string[];

  constructor(scopes: readonly string[] = []) {
    super('insufficient_scope', 403, `Access to this resource requires scope "${scopes.join(' ')}".`);
    this.scopes = [...scopes];
  }
}

// RFC 7009 section 2.1: a client may revoke only its own tokens; the reference answers 403 unauthorized_client.
export class RevocationNotAuthorized extends OAuthError {
  constructor() {
    super('unauthorized_client', 403, 'You are not authorized to revoke this token');
  }
}

// Every concrete OAuth class, each constructible without arguments, so a test can check that all are documented.
export const oauthErrorClasses: ReadonlyArray<new () => OAuthError> = [
  InvalidRequest,
  InvalidRedirectUri,
  UnauthorizedClient,
  AccessDenied,
  InvalidScope,
  ServerError,
  TemporarilyUnavailable,
  UnsupportedResponseType,
  UnsupportedResponseMode,
  InvalidClient,
  InvalidGrant,
  UnsupportedGrantType,
  AuthorizationPending,
  SlowDown,
  ExpiredToken,
  InvalidToken,
  InsufficientScope,
  RevocationNotAuthorized,
];
