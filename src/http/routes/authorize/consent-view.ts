import { authorizationRequestFields, type AuthorizationRequest } from '../../../oauth/authorization/authorization-request.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { claimsBeyondScopes } from '../../../oauth/openid/claims-request.js';
import type { SignedInUser } from '../../hooks/authenticate-resource-owner.js';
import { claimsDescription } from './claims-description.js';
import { selfRegisteredNotice, type SelfRegisteredNotice } from './self-registered-notice.js';

/** What consent.eta prints (reference 15.2); the template decides nothing. */
export interface ConsentModel {
  title: string;
  applicationName: string;
  /** A client that registered itself and that no admin approved (issue 19); null: the page as for any client. */
  selfRegistered: SelfRegisteredNotice | null;
  /**
   * One line per scope: its configured description, else the scope itself; then one line for the claims asked for by
   * name (OpenID Connect Core 5.5) that those scopes do not release.
   */
  scopes: string[];
  /** Hidden fields that re-create the request; POST validates them again in full (STYLE 14). */
  fields: Array<[string, string]>;
  /** RFC 8707: the APIs the access will be limited to (none: every API that trusts this server). */
  resources: string[];
  csrfToken: string;
  username: string;
}

// OpenID Connect's scopes said in words, for a server whose config does not describe them itself.
const OPENID_SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'Sign you in with your account',
  profile: 'See your name and profile details',
  email: 'See your email address',
  address: 'See your postal address',
  phone: 'See your phone number',
};

// OpenID Connect Core 11: what offline_access means to the user, the consent it must be shown for.
const offlineAccessDescription = (applicationName: string) => ({
  offline_access: `Stay signed in to ${applicationName} when you are away`,
});

export function consentModel(deps: OAuthDeps, request: AuthorizationRequest, owner: SignedInUser, csrfToken: string): ConsentModel {
  const descriptions = deps.config.openid.enabled
    ? { ...OPENID_SCOPE_DESCRIPTIONS, ...offlineAccessDescription(request.application.name), ...deps.config.scopeDescriptions }
    : deps.config.scopeDescriptions;
  return {
    title: 'Authorization required',
    applicationName: request.application.name,
    selfRegistered: selfRegisteredNotice(request.application, request.redirectUri, deps.config.baseUrl),
    // Object.hasOwn: a scope named "constructor" must not print Object's constructor.
    scopes: [
      ...request.scopes.map((scope) => (Object.hasOwn(descriptions, scope) ? descriptions[scope]! : scope)),
      ...[claimsDescription(claimsBeyondScopes(request.oidc.claims, request.scopes))].filter((line) => line !== null),
    ],
    fields: [
      ...Object.entries(authorizationRequestFields(request)),
      ...request.resources.map((uri): [string, string] => ['resource', uri]),
    ],
    resources: request.resources,
    csrfToken,
    username: owner.username,
  };
}
