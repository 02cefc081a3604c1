import { authenticateOptionalClient } from '../clients/client-authentication.js';
import { recordAuditEvent } from '../audit/audit-trail.js';
import { reuseDetectedEvent } from '../audit/token-events.js';
import type { OAuthDeps } from '../deps.js';
import type { CheckedDpopProof } from '../tokens/dpop/dpop-proof.js';
import { InvalidClient, InvalidDpopProof, InvalidGrant, InvalidScope } from '../errors.js';
import { optionalParameter, requireParameter, resourceParameters } from '../request-parameters.js';
import { refreshTokenAllowed } from '../openid/offline-access.js';
import { narrowedDetails } from '../resources/authorization-details.js';
import { narrowedAudience, scopesForAudience } from '../resources/resource-indicators.js';
import { isWellFormedScopeParam, narrowScopes, parseScopes } from '../scopes.js';
import { storedForm } from '../secrets.js';
import type { AccessTokenRecord, ApplicationRecord, UserRecord } from '../store.js';
import { issuedToken, type TokenRequest } from '../tokens/token-issuer.js';
import { isRefreshUsable } from '../tokens/token-state.js';
import { isDisabled } from '../users/users.js';
import { admitClient, recordDpopProof, refuseGrantOutsideClient } from './client-admission.js';
import type { GrantHandler, GrantResult } from './grant.js';
import { mintWithIdToken } from './mint-with-id-token.js';
import { currentClaims, currentScopes } from './requested-scopes.js';

/**
 * RFC 6749 section 6 with RFC 9700 section 4.14 rotation: the presented refresh token is retired and a new
 * pair issued; presenting a retired one again revokes the whole family (reuse detection), except for the
 * same client within refreshTokens.graceSeconds (a retried request), which gets a new pair of the family.
 */
export const refreshTokenGrant: GrantHandler = async (deps, { parameters, credentials, address, dpopProof }) => {
  const presented = requireParameter(parameters, 'refresh_token');
  const client = await authenticateOptionalClient(deps, credentials);
  // A client that may not refresh learns that before anything about the token it sent (behaviour.md 3.1); a public
  // client that does not name itself is judged on its token's application below.
  if (client !== null) refuseGrantOutsideClient(deps, 'refresh_token', client);
  const now = deps.now();
  const token = await deps.stores.accessTokens.findByRefreshToken(storedForm(presented, deps.config.hashTokens));
  if (!token) throw new InvalidGrant();
  const application = token.applicationId === null ? null : await deps.stores.applications.findById(token.applicationId);
  if (token.applicationId !== null) {
    // RFC 6749 section 6: a confidential client MUST authenticate (SPEC 8: 401 invalid_client); a public
    // client that does not even name itself keeps the reference's invalid_grant (5.7).
    if (!client) throw application?.confidential ? new InvalidClient() : new InvalidGrant();
    if (client.id !== token.applicationId) throw new InvalidGrant();
  }
  const dpopJkt = await admitClient(deps, 'refresh_token', application, dpopProof);
  // Disabling a user revokes their tokens; one rotated in that very moment escapes the revocation, and must not go on
  // minting tokens (as the password and device grants refuse a disabled user). An owner from a hook has no row here.
  if (token.resourceOwnerId !== null && isDisabledUser(await deps.stores.users.findById(token.resourceOwnerId))) throw new InvalidGrant();
  // Reference 5.7: Doorkeeper also reads the non-standard `scopes`, which its clients may send; `scope` comes first.
  const scopeParameter = optionalParameter(parameters, 'scope') ?? optionalParameter(parameters, 'scopes');
  requireBoundKey(token, application, dpopJkt);
  const resources = resourceParameters(parameters);
  const detailsParameter = optionalParameter(parameters, 'authorization_details');
  const request: Retired = {
    token,
    application,
    client,
    scopeParameter,
    resources,
    detailsParameter,
    dpopJkt,
    dpopProof: dpopProof ?? null,
    now,
    address,
  };
  if (!isRefreshUsable(token, deps.config.refreshTokens.expiresIn, now)) return retiredTokenPresented(deps, request);

  // OpenID Connect Core 12.2: the ID token is signed before the rotation is written (mint-with-id-token.ts).
  const { minted, idToken } = await mintWithIdToken(deps, await successorRequest(deps, request));
  // RFC 9449 section 11.1: the proof is recorded against replay only now that the grant issues (client-admission.ts).
  if (dpopProof) await recordDpopProof(deps, dpopProof);
  // Of two concurrent refreshes of one token exactly one retires it and stores its successor (SPEC 3.1).
  const record = await deps.stores.accessTokens.rotate(token.id, now, minted.input);
  if (record) return { issued: issuedToken(minted, record), application: client, idToken };
  // The loser of that race presented a token retired a moment ago: judged like any retired token, on the row
  // as it is now, so the outcome does not depend on which request the database saw first (its proof is recorded).
  const current = (await deps.stores.accessTokens.findByRefreshToken(token.refreshToken!)) ?? token;
  return retiredTokenPresented(deps, { ...request, token: current, dpopProof: null });
};

const isDisabledUser = (user: UserRecord | null): boolean => user !== null && isDisabled(user);

interface Retired {
  token: AccessTokenRecord;
  application: ApplicationRecord | null;
  client: ApplicationRecord | null;
  scopeParameter: string | undefined;
  /** RFC 8707 section 2.2: resources named to narrow the token's audience. */
  resources: string[];
  /** RFC 9396 section 6.2: authorization_details sent to narrow the token's (undefined: keep them). */
  detailsParameter: string | undefined;
  /** RFC 9449: the key of this request's proof, which the successor is bound to. */
  dpopJkt: string | null;
  /** The proof itself while it is not yet recorded against replay (recordDpopProof), else null. */
  dpopProof: CheckedDpopProof | null;
  now: Date;
  /** The requester's address, for the audit event of a detected reuse. */
  address: string;
}

/**
 * RFC 9449 section 5: a public client's refresh token is bound to the key of its access token (a confidential
 * client's is not: it authenticates), so refreshing it takes a proof of that key.
 */
function requireBoundKey(token: AccessTokenRecord, application: ApplicationRecord | null, dpopJkt: string | null): void {
  if (token.dpopJkt === null || application?.confidential) return;
  if (dpopJkt === null) throw new InvalidDpopProof('This refresh token is DPoP-bound: send a DPoP proof of its key.');
  if (dpopJkt !== token.dpopJkt) throw new InvalidGrant();
}

async function retiredTokenPresented(deps: OAuthDeps, request: Retired): Promise<GrantResult> {
  const { token, client, now } = request;
  if (await withinGraceWindow(deps, token, now)) {
    const { minted, idToken } = await mintWithIdToken(deps, await successorRequest(deps, request));
    if (request.dpopProof) await recordDpopProof(deps, request.dpopProof);
    return { issued: issuedToken(minted, await deps.stores.accessTokens.create(minted.input)), application: client, idToken };
  }
  await detectReuse(deps, request);
  throw new InvalidGrant();
}

function refreshedScopes(
  deps: OAuthDeps,
  scopeParameter: string | undefined,
  token: AccessTokenRecord,
  application: ApplicationRecord | null,
): string[] {
  let scopes = token.scopes;
  if (scopeParameter !== undefined) {
    // RFC 6749 section 6: the requested scope MUST NOT include any scope not originally granted.
    if (!isWellFormedScopeParam(scopeParameter)) throw new InvalidScope();
    const narrowed = narrowScopes(parseScopes(scopeParameter), token.scopes);
    if (narrowed === null) throw new InvalidScope();
    scopes = narrowed;
  }
  // A scope the admin has since removed from the application is not granted again, asked for or not.
  return currentScopes(scopes, application, deps.config);
}

/** The rotated token's successor: its scopes (narrowed by scope), audience (narrowed by resource) and sign-in. */
async function successorRequest(
  deps: OAuthDeps,
  { token, application, scopeParameter, resources, detailsParameter, dpopJkt }: Retired,
): Promise<TokenRequest> {
  const requested = refreshedScopes(deps, scopeParameter, token, application);
  const audience = await narrowedAudience(deps, resources, token.audience);
  const scopes = scopesForAudience(audience, requested);
  return {
    application,
    resourceOwnerId: token.resourceOwnerId,
    scopes,
    grantType: 'refresh_token',
    // OpenID Connect Core 11 (issue 31 item 1): for a client whose refreshTokens is offline_access the chain ends when
    // offline_access is gone (narrowed away, or never granted before the admin switched the client): an access
    // token, no successor refresh token.
    withRefreshToken: application === null || refreshTokenAllowed(application, scopes),
    accessGrantId: token.accessGrantId,
    refreshFamily: token.refreshFamily,
    previousRefreshToken: token.refreshToken ?? '',
    // Reference 5.3: the new token keeps the lifetime of the one it replaces.
    expiresIn: token.expiresIn,
    authTime: token.authTime,
    sessionId: token.sessionId,
    amr: token.amr,
    acr: token.acr,
    audience,
    dpopJkt,
    // OpenID Connect Core 5.5: what the authorization asked for by name, for UserInfo and the refreshed ID token.
    claims: currentClaims(token.claims, application, deps.config),
    // RFC 9396 section 6.2: narrowed to those asked for, never widened.
    authorizationDetails: narrowedDetails(detailsParameter, token.authorizationDetails),
  };
}

// A retry shortly after rotation, while the family is still alive: a successor revoked meanwhile (RFC 7009,
// or reuse detection) is not brought back by presenting its predecessor.
async function withinGraceWindow(deps: OAuthDeps, token: AccessTokenRecord, now: Date): Promise<boolean> {
  const { graceSeconds } = deps.config.refreshTokens;
  if (graceSeconds === 0 || token.refreshedAt === null || token.refreshToken === null) return false;
  if (now.getTime() - token.refreshedAt.getTime() > graceSeconds * 1000) return false;
  return (await deps.stores.accessTokens.findSuccessor(token.refreshToken, token.refreshFamily)) !== null;
}

/** RFC 9700 section 4.14.2: a rotated refresh token used again means it leaked; the family dies. */
// The revocation and its audit event (issue 32 item 7) are one transaction.
async function detectReuse(deps: OAuthDeps, { token, client, now, address }: Retired): Promise<void> {
  const family = token.refreshFamily;
  if (!deps.config.refreshTokens.reuseDetection || token.refreshedAt === null || family === null) return;
  await deps.stores.transaction(async (stores) => {
    const revoked = await stores.accessTokens.revokeFamily(family, now);
    await recordAuditEvent(stores, now, reuseDetectedEvent(token, client, address, revoked));
  });
}
