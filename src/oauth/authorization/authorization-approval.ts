import type { AuthorizationRequest } from './authorization-request.js';
import { codeLifetimeSeconds } from '../clients/fapi2-profile.js';
import { satisfiedAcr, type AuthenticationContext } from '../authentication-context.js';
import type { OAuthDeps } from '../deps.js';
import { reusableToken } from '../grants/reuse.js';
import { LoginRequired } from '../errors.js';
import { claimsConsentedBefore, subjectRequested } from '../openid/claims-request.js';
import { asksOfflineAccess } from '../openid/offline-access.js';
import { subjectFor } from '../openid/subject.js';
import { resolveAudience } from '../resources/resource-indicators.js';
import { generateSecret, storedForm } from '../secrets.js';
import type { AccessGrantRecord } from '../store.js';
import { issueAccessToken, type IssuedToken } from '../tokens/token-issuer.js';

// What happens once a validated request is approved (reference 4.4): a code, or for the implicit flow a token.

export type AuthorizationResult =
  { responseType: 'code'; code: string; grant: AccessGrantRecord } | { responseType: 'token'; issued: IssuedToken };

/** Who approves: the user, and the sign-in the ID token will describe (auth_time, sid, amr, acr). */
export interface Approver extends AuthenticationContext {
  id: number;
  /** The user's own (public) OpenID Connect subject. */
  subject: string;
  sessionId: string | null;
}

export async function approveAuthorization(
  deps: OAuthDeps,
  request: AuthorizationRequest,
  approver: Approver,
): Promise<AuthorizationResult> {
  const resourceOwnerId = approver.id;
  // OpenID Connect Core 5.5.1: a code or token for someone other than the sub the claims request names is never issued
  // (the interaction sent such a session to sign in again; this catches a consent form posted after a switch of user).
  if (!subjectRequested(request.oidc.claims, subjectFor(approver, request.application, deps.config))) throw new LoginRequired();
  if (request.responseType === 'token') {
    return { responseType: 'token', issued: await issueImplicitToken(deps, request, approver) };
  }
  // RFC 6749 section 4.1.2 and 10.10: a fresh 256-bit code, short-lived, stored hashed (SPEC 4); the requested
  // redirect URI is kept so the exchange can require the same one (section 4.1.3).
  const code = generateSecret();
  const grant = await deps.stores.accessGrants.create({
    applicationId: request.application.id,
    resourceOwnerId,
    token: storedForm(code, deps.config.hashTokens),
    expiresIn: codeLifetimeSeconds(request.application, deps.config.authorizationCodeExpiresIn),
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    createdAt: deps.now(),
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    nonce: request.oidc.nonce,
    claims: request.oidc.claims,
    audience: request.resources,
    authorizationDetails: request.authorizationDetails,
    dpopJkt: request.dpopJkt,
    authTime: approver.authTime,
    sessionId: approver.sessionId,
    amr: [...approver.amr],
    acr: satisfiedAcr(approver, request.oidc.acrValues, deps.config.authentication.acr),
  });
  return { responseType: 'code', code, grant };
}

// Reference 6: never a refresh token for the implicit flow; reuseAccessToken applies. The token records the sign-in
// (RFC 9068 section 2.2.1, RFC 9470 section 6.1) as a code's tokens do.
async function issueImplicitToken(deps: OAuthDeps, request: AuthorizationRequest, approver: Approver): Promise<IssuedToken> {
  const resourceOwnerId = approver.id;
  const query = { applicationId: request.application.id, resourceOwnerId, scopes: request.scopes, at: deps.now(), withRefreshToken: false };
  const reused = await reusableToken(deps, request.application, { ...query, audience: request.resources, dpopJkt: null });
  if (reused) return reused;
  const issued = await issueAccessToken(deps, {
    application: request.application,
    resourceOwnerId,
    scopes: request.scopes,
    grantType: 'implicit',
    withRefreshToken: false,
    authTime: approver.authTime,
    amr: [...approver.amr],
    acr: satisfiedAcr(approver, request.oidc.acrValues, deps.config.authentication.acr),
    audience: await resolveAudience(deps, request.resources, request.scopes),
    claims: request.oidc.claims,
    authorizationDetails: request.authorizationDetails,
  });
  // Issue 19: the first token marks the client used, here as at the token endpoint (grants/index.ts).
  if (request.application.usedAt === null) await deps.stores.applications.markUsed(request.application.id, deps.now());
  return issued;
}

/**
 * Whether the consent screen is skipped (SPEC 5 skipAuthorization): a listed client, or a confidential client
 * that already holds a live token of this owner with exactly these scopes (SPEC 8: expired ones do not count;
 * public clients never, since anyone can claim their client_id, RFC 6749 section 10.2); never for a redirect
 * URI other than a registered one.
 */
export async function consentMayBeSkipped(deps: OAuthDeps, request: AuthorizationRequest, resourceOwnerId: number): Promise<boolean> {
  const { clients, whenPreviouslyAuthorized } = deps.config.skipAuthorization;
  // RFC 9396 section 4: authorization_details describe this one transaction (a payment, an account): the user sees them.
  if (request.authorizationDetails.length > 0) return false;
  // What the owner approved (or the admin listed) is delivery to the registered URIs: a loopback URI on
  // another port is allowed for native apps, but the owner sees it first.
  if (!request.application.redirectUris.includes(request.redirectUri)) return false;
  // OpenID Connect Core 11: offline access is consented to on the screen, even by a client the admin listed.
  if (clients.includes(request.application.uid) && !asksOfflineAccess(request.scopes, deps.config.openid.enabled)) return true;
  if (!whenPreviouslyAuthorized || !request.application.confidential) return false;
  const live = await deps.stores.accessTokens.findLiveMatching({
    applicationId: request.application.id,
    resourceOwnerId,
    scopes: request.scopes,
    at: deps.now(),
  });
  // What was approved before is these scopes for these resources (RFC 8707): another audience asks again, and so do
  // claims asked for by name (OpenID Connect Core 5.5) that the consent screen did not name then.
  return (
    live !== null && sameSet(live.audience, request.resources) && claimsConsentedBefore(live.claims, request.oidc.claims, request.scopes)
  );
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item) => b.includes(item));
