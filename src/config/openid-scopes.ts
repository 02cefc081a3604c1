// The scopes of OpenID Connect Core 1.0 that this server gives meaning to while openid.enabled: openid itself, the
// scopes that stand for groups of claims (section 5.4), and offline_access (section 11), which asks for a refresh
// token that keeps working while the user is away. They are about this server's own UserInfo and sign-in, never
// about an API, so no resource (RFC 8707) has to accept them.
export const OPENID_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'];

/** Core 11: the scope a refresh token for offline use is asked with. */
export const OFFLINE_ACCESS = 'offline_access';

/**
 * The OpenID scopes this config offers: offline_access only while grantFlows includes refresh_token (issue 31:
 * discovery never claims a feature that is off), else the user would consent to staying signed in and get nothing.
 */
export function offeredOpenIdScopes(grantFlows: readonly string[]): readonly string[] {
  return grantFlows.includes('refresh_token') ? OPENID_SCOPES : OPENID_SCOPES.filter((scope) => scope !== OFFLINE_ACCESS);
}
