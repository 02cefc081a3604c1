import type { AccessTokenRecord } from '../store.js';

// Reference 17.2: derived state of a token row at an instant.

export function isExpired(token: Pick<AccessTokenRecord, 'createdAt' | 'expiresIn'>, now: Date): boolean {
  return token.expiresIn !== null && now.getTime() >= token.createdAt.getTime() + token.expiresIn * 1000;
}

// Any revoked_at counts, whatever its time: Doorkeeper's "revoked in the future" would let a token revoked
// on one instance look live on another whose clock runs a little behind (SPEC 9: inactive everywhere at once).
export function isRevoked(token: Pick<AccessTokenRecord, 'revokedAt'>, _now?: Date): boolean {
  return token.revokedAt !== null;
}

export function isAccessible(token: AccessTokenRecord, now: Date): boolean {
  return !isExpired(token, now) && !isRevoked(token, now);
}

/** A refresh token can still be exchanged: not revoked or rotated, and within refreshTokens.expiresIn. */
export function isRefreshUsable(token: AccessTokenRecord, refreshExpiresIn: number | null, now: Date): boolean {
  if (token.refreshToken === null || isRevoked(token, now) || token.refreshedAt !== null) return false;
  return refreshExpiresIn === null || now.getTime() < token.createdAt.getTime() + refreshExpiresIn * 1000;
}

/** Why a token is not accessible, in the reference's order (12.2): revoked, expired, unknown. */
export function inaccessibleReason(token: AccessTokenRecord | null, now: Date): 'revoked' | 'expired' | 'unknown' | null {
  if (!token) return 'unknown';
  if (isRevoked(token, now)) return 'revoked';
  if (isExpired(token, now)) return 'expired';
  return null;
}

/** Why an access token may not be used as it was presented (RFC 9449 section 7); see presentationProblem. */
export type PresentationProblem = 'dpop_bound' | 'dpop_unbound' | 'dpop_key';

/**
 * Whether an access token may be used as it was presented: the one rule of every place here that accepts a
 * presented token (UserInfo, introspection's Bearer requester; token info through the guard, which applies the same
 * rule to the cnf.jkt the local guard hands it). `proofKey` is the thumbprint of the request's checked DPoP proof,
 * null when the token came without one (the Bearer scheme, a form field). RFC 9449 section 7.2: a bound token is
 * never a bearer credential ('dpop_bound'); section 7.1: the proof must be by the key it is bound to ('dpop_key'),
 * and the DPoP scheme is for bound tokens only ('dpop_unbound'). Null when the token may be used.
 */
export function presentationProblem(token: Pick<AccessTokenRecord, 'dpopJkt'>, proofKey: string | null): PresentationProblem | null {
  if (token.dpopJkt === proofKey) return null;
  if (proofKey === null) return 'dpop_bound';
  return token.dpopJkt === null ? 'dpop_unbound' : 'dpop_key';
}
