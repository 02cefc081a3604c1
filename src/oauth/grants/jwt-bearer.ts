import { recordDomainEvent } from '../audit/audit-trail.js';
import { assertionRedeemedEvent } from '../audit/vouched-user-events.js';
import { assertionIssuer, verifyAssertion, type VerifiedAssertion } from '../assertions/assertion-checks.js';
import { consumeAssertion } from '../assertions/assertion-replay.js';
import { assertedScopes } from '../assertions/asserted-scopes.js';
import { findAssertedUser, settleAssertedUser } from '../assertions/asserted-user.js';
import { JWT_BEARER_GRANT, mayUseJwtBearer, trustedIssuer } from '../assertions/jwt-bearer-grant-type.js';
import { requireClient } from '../clients/client-authentication.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidGrant, InvalidTarget, UnauthorizedClient } from '../errors.js';
import { optionalParameter, requireParameter, resourceParameters } from '../request-parameters.js';
import { resolveAudience, type Audience } from '../resources/resource-indicators.js';
import { issueAccessToken } from '../tokens/token-issuer.js';
import { admitClient, issuesRefreshToken, recordDpopProof } from './client-admission.js';
import type { GrantHandler } from './grant.js';

/**
 * RFC 7523 section 2.1 (and, for an issuer marked idJag, draft-ietf-oauth-identity-assertion-authz-grant section 4):
 * a client redeems a trusted issuer's signed assertion about a user for an access token for that user. Every check
 * comes before any write; the jti is then recorded (the replay check), the user linked or created, the token issued.
 */
export const jwtBearerGrant: GrantHandler = async (deps, { parameters, credentials, dpopProof, address }) => {
  const assertion = requireParameter(parameters, 'assertion');
  const application = await requireClient(deps, credentials);
  if (!mayUseJwtBearer(deps, application)) throw new UnauthorizedClient();
  const dpopJkt = await admitClient(deps, JWT_BEARER_GRANT, application, dpopProof);
  const entry = trustedIssuer(deps.config, assertionIssuer(assertion));
  if (!entry) throw new InvalidGrant("The assertion's issuer (iss) is not trusted here.");
  if (!entry.clients.includes(application.uid)) throw new UnauthorizedClient();
  // The draft's Security Considerations (Client Authentication): for confidential clients only.
  if (entry.idJag && !application.confidential) throw new UnauthorizedClient();
  const verified = await verifyAssertion(deps, assertion, entry);
  // The draft's processing rules of the access token request: the ID-JAG names this very client.
  if (entry.idJag && typeof verified.claims.client_id !== 'string') throw new InvalidGrant('The assertion has no client_id claim.');
  if (entry.idJag && verified.claims.client_id !== application.uid)
    throw new InvalidGrant('The assertion was issued to another client (client_id).');
  const scopes = assertedScopes(deps, application, verified, optionalParameter(parameters, 'scope'));
  const audience = await assertedAudience(deps, verified, resourceParameters(parameters), scopes);
  const found = await findAssertedUser(deps, verified);
  if (dpopProof) await recordDpopProof(deps, dpopProof);
  await consumeAssertion(deps, verified);
  const user = await settleAssertedUser(deps, verified, found);
  const issued = await issueAccessToken(deps, {
    application,
    resourceOwnerId: user.id,
    scopes,
    grantType: JWT_BEARER_GRANT,
    withRefreshToken: entry.refreshTokens && issuesRefreshToken(deps, application, scopes),
    audience,
    dpopJkt,
  });
  await recordDomainEvent(
    deps,
    assertionRedeemedEvent(user.id, application, address, { issuer: entry.issuer, id_jag: entry.idJag, token_id: issued.record.id }),
  );
  return { issued, application };
};

/**
 * RFC 8707 as at the other grants. An ID-JAG's resource claim is the resource the issuer vouched for: it must be
 * registered here, and it is the token's audience; a resource parameter may only repeat it.
 */
async function assertedAudience(
  deps: OAuthDeps,
  assertion: VerifiedAssertion,
  requested: readonly string[],
  scopes: readonly string[],
): Promise<Audience> {
  const claim = assertion.entry.idJag ? assertion.claims.resource : undefined;
  if (claim === undefined) return resolveAudience(deps, requested, scopes);
  if (typeof claim !== 'string' || (await deps.stores.resources.findByUris([claim])).length === 0)
    throw new InvalidGrant("The assertion's resource is not a resource registered here.");
  const outside = requested.find((uri) => uri !== claim);
  if (outside !== undefined) throw new InvalidTarget(`The resource ${outside} is not the assertion's resource.`);
  return resolveAudience(deps, [claim], scopes);
}
