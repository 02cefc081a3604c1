import { requireClient } from '../clients/client-authentication.js';
import { UnauthorizedClient } from '../errors.js';
import { optionalParameter, resourceParameters } from '../request-parameters.js';
import { resolveAuthorizationDetails } from '../resources/authorization-details.js';
import { resolveAudience } from '../resources/resource-indicators.js';
import { issueAccessToken, issuedToken, mintAccessToken } from '../tokens/token-issuer.js';
import { admitClient, recordDpopProof } from './client-admission.js';
import type { GrantHandler } from './grant.js';
import { grantedScopes } from './requested-scopes.js';
import { reusableToken } from './reuse.js';

/** RFC 6749 section 4.4: a confidential client obtains a token for itself; no resource owner, no refresh token. */
export const clientCredentialsGrant: GrantHandler = async (deps, { parameters, credentials, dpopProof }) => {
  const application = await requireClient(deps, credentials);
  const dpopJkt = await admitClient(deps, 'client_credentials', application, dpopProof);
  // RFC 6749 section 4.4: "The client credentials grant type MUST only be used by confidential clients" (SPEC 8).
  if (!application.confidential) throw new UnauthorizedClient();
  const scopes = grantedScopes(deps, application, optionalParameter(parameters, 'scope'), { allowEmpty: false });
  // RFC 9396 section 6: authorization_details at the token request; their resources join the audience (section 9.1).
  const { details: authorizationDetails, resources } = await resolveAuthorizationDetails(
    deps,
    optionalParameter(parameters, 'authorization_details'),
  );
  const named = resourceParameters(parameters);
  const audience = await resolveAudience(deps, [...named, ...resources.map((resource) => resource.uri)], scopes);
  const query = { applicationId: application.id, resourceOwnerId: null, scopes, at: deps.now() };
  // RFC 9449 section 11.1: the proof is recorded against replay only now that the grant issues (client-admission.ts).
  if (dpopProof) await recordDpopProof(deps, dpopProof);

  // Listed, not spread from query: an object spread followed by more properties costs V8 microseconds (issue 21).
  const reused = await reusableToken(deps, application, {
    applicationId: query.applicationId,
    resourceOwnerId: null,
    scopes,
    at: query.at,
    audience: audience.uris,
    dpopJkt,
    authorizationDetails,
  });
  if (reused) return { issued: reused, application };
  const request = {
    application,
    resourceOwnerId: null,
    scopes,
    grantType: 'client_credentials',
    withRefreshToken: false,
    audience,
    dpopJkt,
    authorizationDetails,
  } as const;
  if (!deps.config.revokePreviousClientCredentialsToken) return { issued: await issueAccessToken(deps, request), application };
  const minted = await mintAccessToken(deps, request);
  // Reference 5.5: the previous token is revoked as the next is stored. Under the client's lock: two requests at once
  // each revoked the same previous token and both of theirs stayed live (Doorkeeper has that race).
  const issued = await deps.stores.transaction(async (stores) => {
    await stores.accessTokens.lockIssuance(application.id);
    const previous = await stores.accessTokens.findLiveMatching(query);
    if (previous) await stores.accessTokens.revoke(previous.id, deps.now());
    return issuedToken(minted, await stores.accessTokens.create(minted.input));
  });
  return { issued, application };
};
