import { authorizationRequestFields, type AuthorizationRequest } from '../../../oauth/authorization/authorization-request.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { claimsBeyondScopes } from '../../../oauth/openid/claims-request.js';
import type { SignedInUser } from '../../hooks/authenticate-resource-owner.js';
import type { PageLanguage } from '../../i18n/page-language.js';
import { textOfPage, type PageText } from '../../i18n/localized-text.js';
import { claimsDescription } from './claims-description.js';
import { detailLines, type DetailLine } from './authorization-details-lines.js';
import { selfRegisteredNotice, type SelfRegisteredNotice } from './self-registered-notice.js';

/** What consent.eta prints (reference 15.2); the template decides nothing. */
export interface ConsentModel {
  title: string;
  applicationName: string;
  /** A client that registered itself and that no admin approved (issue 19); null: the page as for any client. */
  selfRegistered: SelfRegisteredNotice | null;
  /**
   * One line per scope: its configured description, else the scope itself; then one line for the claims asked for by
   * name (OpenID Connect Core 5.5) that those scopes do not release. A description in defaultLocale's words on a page
   * in another language says so (`lang`).
   */
  scopes: PageText[];
  /** Hidden fields that re-create the request; POST validates them again in full (STYLE 14). */
  fields: Array<[string, string]>;
  /** RFC 8707: the APIs the access will be limited to (none: every API that trusts this server). */
  resources: string[];
  /** RFC 9396 section 4: each authorization_details object in words (none: none asked for). */
  authorizationDetails: DetailLine[];
  csrfToken: string;
  username: string;
  /** Where the forms post: /oauth/authorize, or /device/decision for a device's request (RFC 8628). */
  action: string;
  /** RFC 8628 section 5.4: the user code to check against the device's screen; null outside the device flow. */
  deviceUserCode: string | null;
}

// OpenID Connect's scopes, said in words (locales/*.json "scopes") for a server whose config does not describe them
// itself; offline_access too (Core 11: what it means to the user, the consent it must be shown for).
const OPENID_SCOPES = new Set(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);

/** The consent page's lines for these scopes: each scope's description in the page's language, else the scope itself. */
export function scopeLines(deps: OAuthDeps, applicationName: string, scopes: readonly string[], language: PageLanguage): PageText[] {
  const { scopeDescriptions, defaultLocale, openid } = deps.config;
  return scopes.map((scope) => {
    // Object.hasOwn: a scope named "constructor" must not print Object's constructor.
    if (Object.hasOwn(scopeDescriptions, scope)) return textOfPage(scopeDescriptions[scope]!, language.locale, defaultLocale);
    if (openid.enabled && OPENID_SCOPES.has(scope))
      return { text: language.t(`scopes.${scope}`, { application: applicationName }), lang: null };
    return { text: scope, lang: null };
  });
}

/** The request as the consent form's hidden fields carry it back (with the CSRF token and the page's ui_locales). */
export function consentRequestFields(request: AuthorizationRequest): Array<[string, string]> {
  return [...Object.entries(authorizationRequestFields(request)), ...request.resources.map((uri): [string, string] => ['resource', uri])];
}

export function consentModel(
  deps: OAuthDeps,
  request: AuthorizationRequest,
  owner: SignedInUser,
  csrfToken: string,
  language: PageLanguage,
): ConsentModel {
  return {
    title: language.t('consent.title'),
    applicationName: request.application.name,
    selfRegistered: selfRegisteredNotice(request.application, request.redirectUri, deps.config.baseUrl, language),
    scopes: [
      ...scopeLines(deps, request.application.name, request.scopes, language),
      ...[claimsDescription(claimsBeyondScopes(request.oidc.claims, request.scopes), language)]
        .filter((line) => line !== null)
        .map((text) => ({ text, lang: null })),
    ],
    fields: [
      ...consentRequestFields(request),
      // The form's answer (an error page, a form_post page) stays in the language the client asked for.
      ...(language.uiLocales !== null ? [['ui_locales', language.uiLocales] as [string, string]] : []),
    ],
    resources: request.resources,
    authorizationDetails: detailLines(
      request.authorizationDetails,
      request.authorizationDetailsTypes,
      language.locale,
      deps.config.defaultLocale,
    ),
    csrfToken,
    username: owner.username,
    action: '/oauth/authorize',
    deviceUserCode: null,
  };
}
