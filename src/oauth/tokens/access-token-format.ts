// The format of access tokens (RFC 9068), chosen per resource or per application: the one rule both share.

export type AccessTokenFormat = 'opaque' | 'jwt';

export const ACCESS_TOKEN_FORMATS: readonly AccessTokenFormat[] = ['opaque', 'jwt'];

export const JWT_NEEDS_KEYS = 'JWT access tokens need signing keys: enable openid.enabled (and set KEY_ENCRYPTION_KEY)';

export const isAccessTokenFormat = (value: string): value is AccessTokenFormat =>
  (ACCESS_TOKEN_FORMATS as readonly string[]).includes(value);

/**
 * Null when `value` is a format this server can issue. A JWT access token is signed with the keys of the OpenID
 * Connect provider (RFC 9068 section 2.1: it MUST be signed), which exist only while openid.enabled is true.
 * `label` names the field in the message ("Token format", "Access token format").
 */
export function accessTokenFormatError(value: string, options: { openidEnabled: boolean; label: string }): string | null {
  if (!isAccessTokenFormat(value)) return `${options.label} must be opaque or jwt, not ${JSON.stringify(value.slice(0, 40))}`;
  if (value === 'jwt' && !options.openidEnabled) return JWT_NEEDS_KEYS;
  return null;
}
