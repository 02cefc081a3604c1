import type { CheckedRequirement } from './authentication-requirement-shapes.js';
import type { TokenProblem } from './token-problem.js';

const NO_REQUIREMENT: CheckedRequirement = { acr: [], maxAge: null };

// Reference 2.4: the exact descriptions (no trailing period on the invalid_token ones). A request without a
// token gets the "invalid" text in the body too; only its challenge differs (RFC 6750 section 3.1).
const INVALID_TOKEN_TEXT: Record<TokenProblem, string> = {
  missing: 'The access token is invalid',
  unknown: 'The access token is invalid',
  revoked: 'The access token was revoked',
  expired: 'The access token expired',
  audience: 'The access token is not meant for this resource',
  dpop_bound: 'The access token is bound to a key and must be sent with the DPoP scheme and a proof',
  dpop_unbound: 'The access token is not bound to a key; send it with the Bearer scheme',
  dpop_required: 'This resource requires a DPoP-bound access token',
  dpop_proof: 'The DPoP proof is invalid',
  dpop_nonce: 'The resource requires a DPoP nonce',
};

/**
 * Why the guard refused a request: `invalid_token` (401: no token, or an unknown, expired, revoked or other-audience one),
 * `insufficient_scope` (403: a valid token without any of the required scopes), or with DPoP (RFC 9449 section 7.1)
 * `invalid_dpop_proof` (401) and `use_dpop_nonce` (401, section 9), and `insufficient_user_authentication` (401, RFC 9470:
 * the user must sign in again, more strongly or more recently). Render-options hooks receive it.
 */
export class GuardError {
  /** RFC 6750 section 3.1 error code. */
  readonly code: 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce' | 'insufficient_user_authentication';
  readonly status: 401 | 403;
  /** English description (the reference's wording). */
  readonly description: string;
  /** invalid_token: why; `missing` when no bearer token was sent, `audience` when it is meant for another resource. */
  readonly reason: TokenProblem | null;
  /** insufficient_scope: the scopes of which one was required. */
  readonly scopes: readonly string[];
  /** insufficient_user_authentication (RFC 9470 section 3): the sign-in that would be enough; else empty and null. */
  readonly acrValues: readonly string[];
  readonly maxAge: number | null;

  private constructor(
    code: GuardError['code'],
    description: string,
    reason: TokenProblem | null,
    scopes: readonly string[],
    requirement: CheckedRequirement = NO_REQUIREMENT,
  ) {
    this.code = code;
    this.status = code === 'insufficient_scope' ? 403 : 401;
    this.description = description;
    this.reason = reason;
    this.scopes = scopes;
    this.acrValues = requirement.acr;
    this.maxAge = requirement.maxAge;
  }

  static invalidToken(reason: TokenProblem): GuardError {
    return new GuardError('invalid_token', INVALID_TOKEN_TEXT[reason], reason, []);
  }

  /** RFC 9449 section 7.1: the DPoP proof is missing or fails a check (`description` says which); `use_dpop_nonce` for a nonce. */
  static invalidDpopProof(description: string, reason: 'dpop_proof' | 'dpop_nonce' = 'dpop_proof'): GuardError {
    return reason === 'dpop_nonce'
      ? new GuardError('use_dpop_nonce', description, reason, [])
      : new GuardError('invalid_dpop_proof', description, reason, []);
  }

  /** RFC 9470 section 3: the token's sign-in is not the one the route requires; `description` says what falls short. */
  static insufficientUserAuthentication(description: string, requirement: CheckedRequirement): GuardError {
    return new GuardError('insufficient_user_authentication', description, null, [], requirement);
  }

  static insufficientScope(scopes: readonly string[]): GuardError {
    return new GuardError('insufficient_scope', `Access to this resource requires scope "${scopes.join(' ')}".`, null, [...scopes]);
  }

  /** The default response body (SPEC 8: a JSON body where the reference sends none). */
  toJSON(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

const UNAVAILABLE_TEXT = 'The authorization server could not be reached to verify the access token. Try again later.';

/**
 * The token could not be checked: the authorization server is unreachable, too slow or answered something other
 * than a 200 introspection response. The guard answers 503 temporarily_unavailable, never lets the request through.
 * `message` holds the detail for logs; `description` is what clients see.
 */
export class GuardUnavailableError extends Error {
  readonly code = 'temporarily_unavailable';
  /**
   * So a host's error handler answers 503 when a handler awaits serviceToken(). Fastify's default one would send
   * `message`, the detail for logs: answer `toJSON()` instead (docs/protecting-apis.md).
   */
  readonly statusCode = 503;
  readonly description = UNAVAILABLE_TEXT;

  constructor(detail: string, options?: { cause?: unknown }) {
    super(detail, options);
    this.name = 'GuardUnavailableError';
  }

  toJSON(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

const MISCONFIGURED_TEXT = 'the API is misconfigured';

/**
 * The authorization server refused the guard's own request: its client credentials (`invalid_client`, a 401 or
 * 403), its permission to introspect (`unauthorized_client`), or the request itself (a 400 with an OAuth error).
 * That is the API's misconfiguration, not an outage and not the caller's fault, so the guard answers 500
 * server_error without a challenge, and retrying will not help until the configuration is fixed. `message` holds the
 * detail for logs (never the secret); `description` is what clients see.
 */
export class GuardMisconfiguredError extends Error {
  readonly code = 'server_error';
  /**
   * So a host's error handler answers 500 when a handler awaits serviceToken(). Fastify's default one would send
   * `message`, the detail for logs: answer `toJSON()` instead (docs/protecting-apis.md).
   */
  readonly statusCode = 500;
  readonly description = MISCONFIGURED_TEXT;
  /** The endpoint that refused the guard. */
  readonly url: string;
  /** The HTTP status it answered. */
  readonly status: number;
  /** Its OAuth `error` code (RFC 6749 section 5.2), null when it sent none. */
  readonly serviceError: string | null;

  constructor(detail: string, { url, status, serviceError }: { url: string; status: number; serviceError: string | null }) {
    super(detail);
    this.name = 'GuardMisconfiguredError';
    this.url = url;
    this.status = status;
    this.serviceError = serviceError;
  }

  toJSON(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}
