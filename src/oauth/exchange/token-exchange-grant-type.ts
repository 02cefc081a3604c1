// The exchange folder owns the token exchange grant (RFC 8693, issue 34 item 4): the subject and actor tokens it
// accepts, the act claim it records, and the ID-JAGs it issues as an enterprise identity provider.

import { holdsGrantType } from '../clients/client-holdings.js';
import type { OAuthDeps } from '../deps.js';
import type { ApplicationRecord } from '../store.js';

/** RFC 8693 section 2.1: the grant_type, also its name in grantFlows and a client's grant types. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange' as const;

/** RFC 8693 section 3 and draft-ietf-oauth-identity-assertion-authz-grant: the token types this server knows. */
export const TOKEN_TYPES = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  idJag: 'urn:ietf:params:oauth:token-type:id-jag',
} as const;

/**
 * Opt-in per client, as the device and JWT bearer grants: an exchange gets a user's token without that user at a
 * consent screen, so only a client whose grant types name the grant may make one (never one with every grant).
 */
export function mayUseTokenExchange(deps: Pick<OAuthDeps, 'config'>, application: ApplicationRecord): boolean {
  return (
    (application.grantTypes?.includes(TOKEN_EXCHANGE_GRANT) ?? false) && holdsGrantType(application, TOKEN_EXCHANGE_GRANT, deps.config)
  );
}
