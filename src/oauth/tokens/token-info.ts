import type { OAuthDeps } from '../deps.js';
import type { AccessTokenRecord } from '../store.js';
import { expiresInSeconds } from './token-issuer.js';

export interface TokenInfo {
  resource_owner_id: number | null;
  scope: string[];
  expires_in: number | null;
  application: { uid: string | null };
  created_at: number;
  /** RFC 9449 section 6.2: the key a DPoP-bound token is bound to. */
  cnf?: { jkt: string };
}

/**
 * GET /oauth/token/info (reference 11, SPEC 3.4): what is said about an access token already found accessible
 * (by the route's guard, or by the guard in local mode).
 *
 * OpenID Connect Core 8.1: Doorkeeper's resource_owner_id is the user's numeric id, the same whichever client asks, so a
 * pairwise client is answered null: told the global id, clients of two sectors could match up their users by it. Its
 * user is the pairwise `sub` of its ID tokens, UserInfo and introspection.
 */
export async function describeAccessToken(deps: OAuthDeps, token: AccessTokenRecord): Promise<TokenInfo> {
  const application = token.applicationId === null ? null : await deps.stores.applications.findById(token.applicationId);
  return {
    resource_owner_id: application?.subjectType === 'pairwise' ? null : token.resourceOwnerId,
    scope: token.scopes,
    expires_in: expiresInSeconds(token, deps.now()),
    application: { uid: application?.uid ?? null },
    created_at: Math.floor(token.createdAt.getTime() / 1000),
    ...(token.dpopJkt !== null && { cnf: { jkt: token.dpopJkt } }),
  };
}
