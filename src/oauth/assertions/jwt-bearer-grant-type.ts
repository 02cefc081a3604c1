// The assertions folder owns the JWT bearer grant's side of trust (issue 34 item 3): which issuers' assertions are
// redeemed (config trustedIssuers), their keys, the checks of RFC 7523 section 3 and of the ID-JAG profile, replay,
// and which user an assertion's subject is.

import type { TrustedIssuerConfig } from '../../config/trusted-issuers-schema.js';
import { holdsGrantType } from '../clients/client-holdings.js';
import type { OAuthDeps } from '../deps.js';
import type { ApplicationRecord } from '../store.js';

/** RFC 7523 section 2.1: the grant_type of a JWT bearer token request, also its name in grantFlows and grant_types. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer' as const;

/** draft-ietf-oauth-identity-assertion-authz-grant: the typ header of an Identity Assertion JWT Authorization Grant. */
export const ID_JAG_TYPE = 'oauth-id-jag+jwt';

/**
 * Issue 34: opt-in per client, as the device grant. A client whose grant types are unset (an admin's application that
 * uses every enabled grant) does not use it: an assertion gets a user's token without that user at a consent screen,
 * so only clients whose owner named the grant may redeem one (and only a trusted issuer's that lists them).
 */
export function mayUseJwtBearer(deps: Pick<OAuthDeps, 'config'>, application: ApplicationRecord): boolean {
  return (application.grantTypes?.includes(JWT_BEARER_GRANT) ?? false) && holdsGrantType(application, JWT_BEARER_GRANT, deps.config);
}

/** The trusted issuer whose `iss` this is, exactly (RFC 7523 section 3 item 1), or null. */
export const trustedIssuer = (config: OAuthDeps['config'], issuer: unknown): TrustedIssuerConfig | null =>
  config.trustedIssuers.find((entry) => entry.issuer === issuer) ?? null;
