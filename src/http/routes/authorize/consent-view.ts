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
  /** Where the forms post: /oauth/authorize, or /device/decision for a device's request (RFC 8628). */
  action: string;
  /** RFC 8628 section 5.4: the user code to check against the device's screen; null outside the device flow. */
  deviceUserCode: string | null;
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

/** The consent page's lines for these scopes: each scope's description, else the scope itself. */
export function scopeLines(deps: OAuthDeps, applicationName: string, scopes: readonly string[]): string[] {
  const descriptions = deps.config.openid.enabled
    ? { ...OPENID_SCOPE_DESCRIPTIONS, ...offlineAccessDescription(applicationName), ...deps.config.scopeDescriptions }
    : deps.config.scopeDescriptions;
  // Object.hasOwn: a scope named "constructor" must not print Object's constructor.
  return scopes.map((scope) => (Object.hasOwn(descriptions, scope) ? descriptions[scope]! : scope));
}

export function consentModel(deps: OAuthDeps, request: AuthorizationRequest, owner: SignedInUser, csrfToken: string): ConsentModel {
  return {
    title: 'Authorization required',
    applicationName: request.application.name,
    selfRegistered: selfRegisteredNotice(request.application, request.redirectUri, deps.config.baseUrl),
    scopes: [
      ...scopeLines(deps, request.application.name, request.scopes),
      ...[claimsDescription(claimsBeyondScopes(request.oidc.claims, request.scopes))].filter((line) => line !== null),
    ],
    fields: [
      ...Object.entries(authorizationRequestFields(request)),
      ...request.resources.map((uri): [string, string] => ['resource', uri]),
    ],
    resources: request.resources,
    csrfToken,
    username: owner.username,
    action: '/oauth/authorize',
    deviceUserCode: null,
  };
}
