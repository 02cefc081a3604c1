import type { GrantFlow } from '../../config/types.js';
import { holdsGrantType } from '../clients/client-holdings.js';
import { FAPI2, fapi2RefusesGrant, requireFapi2DpopAlgorithm } from '../clients/fapi2-profile.js';
import type { OAuthDeps } from '../deps.js';
import { refuseReplayedDpopProof, rememberDpopProof, type CheckedDpopProof } from '../tokens/dpop/dpop-proof.js';
import { UnauthorizedClient } from '../errors.js';
import { refreshTokenAllowed } from '../openid/offline-access.js';
import type { ApplicationRecord } from '../store.js';

/**
 * What every grant does as soon as it knows its client (authenticated, or for a public client's refresh the
 * application of its own refresh token), before it reads or writes anything else for the request. Returns the
 * thumbprint of the request's DPoP proof (RFC 9449), null without one. The proof's own checks (section 4.3) come
 * first: its signature and claims before the client was authenticated, and here whether it was used already, so a
 * replayed proof is invalid_dpop_proof whatever else is wrong; it is recorded only by recordDpopProof.
 */
export async function admitClient(
  deps: Pick<OAuthDeps, 'stores' | 'config'>,
  grantType: GrantFlow,
  application: ApplicationRecord | null,
  dpopProof: CheckedDpopProof | null | undefined,
): Promise<string | null> {
  refuseGrantOutsideClient(deps, grantType, application);
  if (!dpopProof) return null;
  requireFapi2DpopAlgorithm(application, dpopProof.alg);
  await refuseReplayedDpopProof(deps, dpopProof);
  return dpopProof.jkt;
}

/** RFC 6749 section 5.2: unauthorized_client when the client may not use this grant (its grant types, its profile). */
export function refuseGrantOutsideClient(
  deps: Pick<OAuthDeps, 'config'>,
  grantType: GrantFlow,
  application: ApplicationRecord | null,
): void {
  if (!holdsGrantType(application, grantType, deps.config)) throw new UnauthorizedClient();
  if (fapi2RefusesGrant(application, grantType))
    throw new UnauthorizedClient(`${FAPI2}: the ${grantType} grant is not allowed for this client (profile fapi2).`);
}

/**
 * RFC 9449 section 11.1, issue 29 item 7: a grant records the request's proof against replay once it has decided to
 * issue, just before its issuing write, so a refused request (no or wrong credentials, a bogus code, an unknown user,
 * a grant the client may not use) writes nothing. The INSERT itself is the replay check: of two requests with one
 * proof exactly one gets past it, the other fails with invalid_dpop_proof before anything is stored for it.
 */
export function recordDpopProof(deps: Pick<OAuthDeps, 'stores'>, dpopProof: CheckedDpopProof): Promise<void> {
  return rememberDpopProof(deps, dpopProof);
}

/**
 * Whether a token of these scopes for this client comes with a refresh token: never one the client could not use,
 * and for a client whose refreshTokens is offlineAccess only when offline_access was granted (OpenID Connect Core 11).
 */
export function issuesRefreshToken(deps: Pick<OAuthDeps, 'config'>, application: ApplicationRecord, scopes: readonly string[]): boolean {
  if (!deps.config.grantFlows.includes('refresh_token')) return false;
  return holdsGrantType(application, 'refresh_token', deps.config) && refreshTokenAllowed(application, scopes);
}
