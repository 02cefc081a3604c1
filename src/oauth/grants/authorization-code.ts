import { requireClient } from '../clients/client-authentication.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidDpopProof, InvalidGrant, InvalidRequest } from '../errors.js';
import { verifyCodeVerifier } from '../authorization/pkce.js';
import { optionalParameter, requireParameter, resourceParameters } from '../request-parameters.js';
import { narrowedDetails } from '../resources/authorization-details.js';
import { narrowedAudience, scopesForAudience } from '../resources/resource-indicators.js';
import { storedForm } from '../secrets.js';
import type { AccessGrantRecord, ApplicationRecord } from '../store.js';
import { idTokenFor } from '../openid/id-token-issuer.js';
import { issuedToken, requireDpopBinding, type IssuedToken, type MintedToken } from '../tokens/token-issuer.js';
import { admitClient, issuesRefreshToken, recordDpopProof } from './client-admission.js';
import type { GrantHandler } from './grant.js';
import { mintWithIdToken } from './mint-with-id-token.js';
import { currentClaims, currentScopes } from './requested-scopes.js';
import { reusableToken, reuseEnabled, type ReuseQuery } from './reuse.js';

/** RFC 6749 section 4.1.3: exchange a code for tokens, with the checks of reference 5.4 and SPEC 3.1. */
export const authorizationCodeGrant: GrantHandler = async (deps, { parameters, credentials, dpopProof }) => {
  const code = requireParameter(parameters, 'code');
  const redirectUri = requireParameter(parameters, 'redirect_uri');
  // The client first: what the server says about a code (it wants a verifier) is for its client only.
  const application = await requireClient(deps, credentials);
  const dpopJkt = await admitClient(deps, 'authorization_code', application, dpopProof);
  const grant = await deps.stores.accessGrants.findByToken(storedForm(code, deps.config.hashTokens));
  const verifier = optionalParameter(parameters, 'code_verifier');
  const ownGrant = grant !== null && grant.applicationId === application.id;
  if (verifier === undefined && ((ownGrant && grant?.codeChallenge) || pkceRequired(deps, application))) {
    throw InvalidRequest.missingParameter('code_verifier');
  }

  const now = deps.now();
  if (!grant || grant.applicationId !== application.id) throw new InvalidGrant();
  if (grant.revokedAt !== null) {
    // RFC 6749 section 4.1.2: a code used twice "SHOULD revoke (when possible) all tokens previously issued
    // based on that authorization code" (SPEC 8).
    await deps.stores.accessTokens.revokeIssuedFromGrant(grant.id, now);
    throw new InvalidGrant();
  }
  if (now.getTime() >= grant.createdAt.getTime() + grant.expiresIn * 1000) throw new InvalidGrant();
  // RFC 6749 section 4.1.3: redirect_uri must be identical to the one of the authorization request.
  if (redirectUri !== grant.redirectUri) throw new InvalidGrant();
  if (!pkceSatisfied(deps, grant, verifier)) throw new InvalidGrant();
  // RFC 9449 section 10: a code requested with dpop_jkt is exchanged only with a proof of that key. Without any proof
  // the client is told to send one (invalid_dpop_proof, in the FAPI 2.0 profile's words for its clients), as at the
  // refresh of a bound token; a proof of another key is invalid_grant.
  if (grant.dpopJkt !== null && dpopJkt === null) {
    requireDpopBinding(application, null);
    throw new InvalidDpopProof('This code is DPoP-bound (dpop_jkt): send a DPoP proof of its key.');
  }
  if (grant.dpopJkt !== null && grant.dpopJkt !== dpopJkt) throw new InvalidGrant();
  // A scope the admin removed from the application after the code was issued is not granted; a resource named
  // here narrows the code's audience (RFC 8707 section 2.2), and the scopes to what it accepts.
  const granted = currentScopes(grant.scopes, application, deps.config);
  const audience = await narrowedAudience(deps, resourceParameters(parameters), grant.audience);
  const scopes = scopesForAudience(audience, granted);
  // RFC 9396 section 6.1: authorization_details here may only narrow those the user approved.
  const authorizationDetails = narrowedDetails(optionalParameter(parameters, 'authorization_details'), grant.authorizationDetails);

  const withRefreshToken = issuesRefreshToken(deps, application, scopes);
  // Minted (a JWT signed) and the ID token signed before anything is written: signing may read or make a key, on a
  // connection of its own, and may fail, which must leave the code unused and no token issued (mint-with-id-token.ts).
  const { minted, idToken } = await mintWithIdToken(
    deps,
    {
      application,
      resourceOwnerId: grant.resourceOwnerId,
      scopes,
      grantType: 'authorization_code',
      withRefreshToken,
      accessGrantId: grant.id,
      authTime: grant.authTime,
      sessionId: grant.sessionId,
      amr: grant.amr,
      acr: grant.acr,
      audience,
      dpopJkt,
      claims: currentClaims(grant.claims, application, deps.config),
      authorizationDetails,
    },
    grant.nonce,
  );
  // RFC 9449 section 11.1: the proof is recorded against replay only now that the grant issues (client-admission.ts).
  if (dpopProof) await recordDpopProof(deps, dpopProof);
  const issued = await exchange(deps, application, grant, minted, {
    at: now,
    scopes,
    withRefreshToken,
    audience: audience.uris,
    dpopJkt,
    authorizationDetails,
  });
  if (issued) {
    const { record, accessToken, reused } = issued;
    // A reused token (reuseAccessToken) is a stored one: its ID token goes with its value (at_hash) and its sign-in.
    const signed = reused ? await idTokenFor(deps, { application, token: record, accessToken, nonce: grant.nonce }) : idToken;
    return { issued, application, idToken: signed };
  }
  // Lost the race to a concurrent exchange of the same code: that is a replay too (RFC 6749 section 4.1.2),
  // so it revokes what the winner got, whichever request came first. Outside the exchange, which is over.
  await deps.stores.accessTokens.revokeIssuedFromGrant(grant.id, now);
  throw new InvalidGrant();
};

/** The code consumed and its token stored, atomically; null when a concurrent exchange consumed the code first. */
async function exchange(
  deps: OAuthDeps,
  application: ApplicationRecord,
  grant: AccessGrantRecord,
  minted: MintedToken,
  terms: Omit<ReuseQuery, 'applicationId' | 'resourceOwnerId'>,
): Promise<IssuedToken | null> {
  // Without the options that add to it, one statement (a round trip instead of four: bench/RESULTS.md).
  if (!deps.config.revokePreviousAuthorizationCodeToken && !reuseEnabled(deps.config)) {
    const record = await deps.stores.accessTokens.createForCode(grant.id, terms.at, minted.input);
    return record && issuedToken(minted, record);
  }
  return deps.stores.transaction(async (stores) => {
    // The conditional update lets exactly one of several concurrent exchanges win (SPEC 3.1).
    if (!(await stores.accessGrants.consume(grant.id, terms.at))) return null;
    if (deps.config.revokePreviousAuthorizationCodeToken) {
      // Under the client's lock, as client_credentials' (reference 5.5): two codes exchanged at once leave one token live.
      await stores.accessTokens.lockIssuance(application.id);
      await stores.accessTokens.revokeAllFor(application.id, grant.resourceOwnerId, terms.at);
    }
    const query = { applicationId: application.id, resourceOwnerId: grant.resourceOwnerId, ...terms };
    const reused = await reusableToken({ ...deps, stores }, application, query);
    return reused ?? issuedToken(minted, await stores.accessTokens.create(minted.input));
  });
}

function pkceRequired(deps: OAuthDeps, application: ApplicationRecord): boolean {
  const { required } = deps.config.pkce;
  return required === 'all' || (required === 'public' && !application.confidential);
}

// RFC 7636 section 4.6. A verifier sent for a code issued without a challenge fails too (reference 5.4); a
// method the server does not (or no longer) accept never verifies (section 4.2: plain only when enabled).
function pkceSatisfied(deps: OAuthDeps, grant: AccessGrantRecord, verifier: string | undefined): boolean {
  if (!grant.codeChallenge) return verifier === undefined;
  const method = grant.codeChallengeMethod ?? '';
  if (!(deps.config.pkce.methods as readonly string[]).includes(method)) return false;
  return verifier !== undefined && verifyCodeVerifier(verifier, grant.codeChallenge, method);
}
