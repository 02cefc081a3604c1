import type { OAuthDeps } from '../deps.js';
import { queueTokenHoldersLogout } from '../openid/backchannel-logout/logout-queue.js';
import type { ApplicationRecord, Stores } from '../store.js';

// A resource owner's authorizations: the applications holding a live token of theirs, and revoking them.

/** How many tokens (access and refresh rows) and grants (unused codes, device approvals not yet polled) a revocation ended. */
export interface RevokedAuthorizations {
  tokens: number;
  grants: number;
}

export interface AuthorizedApplication {
  application: ApplicationRecord;
  authorizedAt: Date;
}

/** Reference 14: the applications holding a live token of the owner, with when each was authorized. */
export function authorizedApplications(deps: OAuthDeps, resourceOwnerId: number): Promise<AuthorizedApplication[]> {
  return deps.stores.accessTokens.authorizedApplications({
    resourceOwnerId,
    at: deps.now(),
    refreshTokenExpiresIn: deps.config.refreshTokens.expiresIn,
  });
}

/**
 * Revokes every live token and every unused code of the owner, for one application (reference 14: the
 * owner's "Revoke" button; an unknown application id changes nothing) or, with `applicationId` null, for all
 * of them (CLI `users revoke-tokens` and `users delete`). One transaction, so a failure leaves neither half done.
 * The clients holding those tokens are sent a logout token (Back-Channel Logout 1.0), queued in the same transaction.
 */
export async function revokeAuthorizations(
  deps: OAuthDeps,
  resourceOwnerId: number,
  applicationId: number | null = null,
): Promise<RevokedAuthorizations> {
  const now = deps.now();
  let loggedOut = 0;
  const revoked = await deps.stores.transaction(async (stores) => {
    // An approved device authorization (RFC 8628) the device has not yet polled is this grant's unused code: denied,
    // the device's next poll gets access_denied (section 3.5: "the authorization request was denied"), which ends the
    // flow; expired_token would invite it to start over. First, so that a poll redeeming it meanwhile either finds it
    // denied or committed its token before the tokens below are revoked (a poll consumes and stores in one transaction).
    const devices = await stores.deviceAuthorizations.denyApprovedFor(resourceOwnerId, applicationId, now);
    loggedOut = await queueTokenHoldersLogout(deps, stores, resourceOwnerId, applicationId);
    const { tokens, grants } = await revokeTokensAndCodes(stores, resourceOwnerId, applicationId, now);
    return { tokens, grants: grants + devices };
  });
  if (loggedOut > 0) deps.logoutDeliveries?.wake();
  return revoked;
}

// The codes first (READ COMMITTED: each statement sees what committed before it began). A code exchange in flight
// holds its code's row until it commits its tokens: the codes' statement waits for it, so the tokens' statement sees
// those tokens; or the exchange waits for this revocation and finds its code revoked (invalid_grant). Tokens first,
// such an exchange committed between the two statements, and its tokens stayed live (a race audit, on two instances).
// A refresh in flight is the token statements' own concern (access-token-repository.ts revokeAllOf).
async function revokeTokensAndCodes(
  stores: Stores,
  resourceOwnerId: number,
  applicationId: number | null,
  now: Date,
): Promise<RevokedAuthorizations> {
  if (applicationId === null) {
    const grants = await stores.accessGrants.revokeAllForOwner(resourceOwnerId, now);
    return { grants, tokens: await stores.accessTokens.revokeAllForOwner(resourceOwnerId, now) };
  }
  const grants = await stores.accessGrants.revokeAllFor(applicationId, resourceOwnerId, now);
  return { grants, tokens: await stores.accessTokens.revokeAllFor(applicationId, resourceOwnerId, now) };
}
