import type { OAuthDeps } from '../deps.js';
import type { IssuedToken } from '../token-issuer.js';

/**
 * reuseAccessToken (reference 17.6): an existing live token of the same application, owner and scopes is
 * returned instead of a new one. Only possible with plain token storage (the config loader refuses
 * reuseAccessToken with hashTokens), because the response must carry the token's value.
 */
export async function reusableToken(
  deps: OAuthDeps,
  query: { applicationId: number; resourceOwnerId: number | null; scopes: string[]; at: Date; withRefreshToken?: boolean },
  audience: readonly string[] = [],
  dpopJkt: string | null = null,
): Promise<IssuedToken | null> {
  // A token restricted to resources (RFC 8707) or bound to a key (RFC 9449) is never reused: the one found may be
  // for other resources, or another key.
  if (!deps.config.reuseAccessToken || deps.config.hashTokens || audience.length > 0 || dpopJkt !== null) return null;
  const record = await deps.stores.accessTokens.findLiveMatching(query);
  if (!record) return null;
  return { record, accessToken: record.token, refreshToken: record.refreshToken, reused: true };
}
