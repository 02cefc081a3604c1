import type { OAuthDeps } from './deps.js';
import { InvalidToken } from './errors.js';
import type { AccessTokenRecord } from './store.js';
import { expiresInSeconds } from './token-issuer.js';
import { findAccessToken } from './token-lookup.js';
import { isAccessible } from './token-state.js';

export interface TokenInfo {
  resource_owner_id: number | null;
  scope: string[];
  expires_in: number | null;
  application: { uid: string | null };
  created_at: number;
}

/**
 * GET /oauth/token/info (reference 11, SPEC 3.4). Every failure is the same "The access token is invalid",
 * as in the reference: the endpoint says nothing about why a token is unusable.
 */
export async function tokenInfo(deps: OAuthDeps, bearer: string | null): Promise<TokenInfo> {
  const token = bearer ? await findAccessToken(deps, bearer) : null;
  if (!token || !isAccessible(token, deps.now())) throw new InvalidToken('unknown');
  return describeAccessToken(deps, token);
}

/** The token info of an access token already found accessible (by tokenInfo, or by the guard in local mode). */
export async function describeAccessToken(deps: OAuthDeps, token: AccessTokenRecord): Promise<TokenInfo> {
  const application = token.applicationId === null ? null : await deps.stores.applications.findById(token.applicationId);
  return {
    resource_owner_id: token.resourceOwnerId,
    scope: token.scopes,
    expires_in: expiresInSeconds(token, deps.now()),
    application: { uid: application?.uid ?? null },
    created_at: Math.floor(token.createdAt.getTime() / 1000),
  };
}
