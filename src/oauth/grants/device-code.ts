import { requireClient } from '../clients/client-authentication.js';
import type { OAuthDeps } from '../deps.js';
import { mayStartDeviceFlow } from '../device/device-authorization-request.js';
import type { DeviceAuthorizationRecord } from '../device/device-authorization-store.js';
import { DEVICE_CODE_GRANT } from '../device/device-code-grant-type.js';
import { AccessDenied, AuthorizationPending, ExpiredToken, InvalidGrant, SlowDown, UnauthorizedClient } from '../errors.js';
import { requireParameter } from '../request-parameters.js';
import { narrowedAudience, scopesForAudience } from '../resources/resource-indicators.js';
import { sha256Hex } from '../secrets.js';
import type { ApplicationRecord } from '../store.js';
import type { CheckedDpopProof } from '../tokens/dpop/dpop-proof.js';
import { issuedToken, requireDpopBinding } from '../tokens/token-issuer.js';
import { admitClient, issuesRefreshToken, recordDpopProof } from './client-admission.js';
import type { GrantHandler } from './grant.js';
import { mintWithIdToken } from './mint-with-id-token.js';
import { currentScopes } from './requested-scopes.js';
import { isDisabled } from '../users/users.js';

/**
 * RFC 8628 section 3.4 and 3.5: the device polls with its device code until the person at /device decides. PKCE
 * does not apply (there is no redirect); DPoP does, bound here as at the code exchange. The device code is used once.
 */
export const deviceCodeGrant: GrantHandler = async (deps, { parameters, credentials, dpopProof }) => {
  const deviceCode = requireParameter(parameters, 'device_code');
  const application = await requireClient(deps, credentials);
  if (!mayStartDeviceFlow(deps, application)) throw new UnauthorizedClient();
  const dpopJkt = await admitClient(deps, DEVICE_CODE_GRANT, application, dpopProof);
  // RFC 9449 section 5.2: a client that must prove its key is refused without a proof at every poll, not only the one
  // after the approval (it would poll without one until then, told only authorization_pending).
  requireDpopBinding(application, dpopJkt);
  const now = deps.now();
  // Section 3.5: a pending code's poll is recorded as it is read (one statement: the most frequent request of the flow).
  const found = await deps.stores.deviceAuthorizations.findAndPoll(sha256Hex(deviceCode), application.id, now);
  const authorization = found?.authorization;
  // Another client's device code is as unknown as a made-up one; a used one answers nothing more.
  if (!authorization || authorization.applicationId !== application.id || authorization.status === 'used') throw new InvalidGrant();
  if (now.getTime() >= authorization.expiresAt.getTime()) throw new ExpiredToken();
  // Denied by the person, by their code entered too often, or by a revocation after the approval: the generic text.
  if (authorization.status === 'denied') throw new AccessDenied();
  if (authorization.status === 'pending') {
    // Polled sooner than the interval in force is slow_down, and the interval grows for this code.
    if (found.poll?.outcome === 'slow_down') throw new SlowDown(found.poll.interval);
    throw new AuthorizationPending();
  }
  return issueApproved(deps, application, authorization, dpopJkt, dpopProof);
};

async function issueApproved(
  deps: OAuthDeps,
  application: ApplicationRecord,
  authorization: DeviceAuthorizationRecord,
  dpopJkt: string | null,
  dpopProof: CheckedDpopProof | null | undefined,
) {
  // A user disabled or deleted since approving gets no token (their codes were revoked; this row was not).
  const owner = authorization.resourceOwnerId === null ? null : await deps.stores.users.findById(authorization.resourceOwnerId);
  if (!owner || isDisabled(owner)) throw new InvalidGrant();
  // What the admin removed from the client since the person approved is not granted (as for a code).
  const granted = currentScopes(authorization.scopes, application, deps.config);
  const audience = await narrowedAudience(deps, [], authorization.audience);
  const scopes = scopesForAudience(audience, granted);
  const { minted, idToken } = await mintWithIdToken(deps, {
    application,
    resourceOwnerId: authorization.resourceOwnerId,
    scopes,
    grantType: DEVICE_CODE_GRANT,
    withRefreshToken: issuesRefreshToken(deps, application, scopes),
    authTime: authorization.authTime,
    sessionId: authorization.sessionId,
    amr: authorization.amr,
    acr: authorization.acr,
    audience,
    dpopJkt,
  });
  // RFC 9449 section 11.1: the proof is recorded against replay only now that the grant issues (client-admission.ts).
  if (dpopProof) await recordDpopProof(deps, dpopProof);
  const issued = await deps.stores.transaction(async (stores) => {
    // Of several polls at once, exactly one gets the tokens; the others find the code used.
    if (!(await stores.deviceAuthorizations.consume(authorization.id))) return null;
    return issuedToken(minted, await stores.accessTokens.create(minted.input));
  });
  if (!issued) throw new InvalidGrant();
  return { issued, application, idToken };
}
