// Why a request has no valid token: read by the token types (types.ts) and the refusal (guard-error.ts), so
// neither of those imports the other for it.

/** Why an inactive token is unusable (reference 12.2: revoked, expired, unknown). */
export type InvalidTokenReason = 'revoked' | 'expired' | 'unknown';
/**
 * Why a request has no valid token. `missing`: no bearer token was sent at all (RFC 6750 section 3.1);
 * `audience`: a valid token meant for another resource (RFC 8707, RFC 9068 section 4), or one without an audience
 * where the guard requires one.
 */
export type TokenProblem = InvalidTokenReason | 'missing' | 'audience';
