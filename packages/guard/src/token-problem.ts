// Why a request has no valid token: read by the token types (types.ts) and the refusal (guard-error.ts), so
// neither of those imports the other for it.

/** Why an inactive token is unusable (reference 12.2: revoked, expired, unknown). */
export type InvalidTokenReason = 'revoked' | 'expired' | 'unknown';
/**
 * Why a request has no valid token. `missing`: no bearer token was sent at all (RFC 6750 section 3.1);
 * `audience`: a valid token meant for another resource (RFC 8707, RFC 9068 section 4), or one without an audience
 * where the guard requires one.
 */
export type TokenProblem = InvalidTokenReason | 'missing' | 'audience' | DpopProblem;

/**
 * DPoP (RFC 9449) refusals. `dpop_bound`: a token bound to a key sent as Bearer (section 7.2); `dpop_unbound`: a
 * bearer token sent with the DPoP scheme; `dpop_required`: a Bearer token where the guard requires DPoP (all three
 * invalid_token); `dpop_proof`: a missing or invalid proof, or one signed by another key than the token's
 * (invalid_dpop_proof); `dpop_nonce`: the proof lacks the current server nonce (use_dpop_nonce, section 9).
 */
export type DpopProblem = 'dpop_bound' | 'dpop_unbound' | 'dpop_required' | 'dpop_proof' | 'dpop_nonce';
