import type { AccessTokenRecord } from './store.js';

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
