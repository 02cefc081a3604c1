import type { ApplicationFields } from '../../../oauth/clients/applications.js';
import { refreshTokensValue } from '../../../oauth/clients/refresh-token-setting.js';
import type { ApplicationRecord } from '../../../oauth/store.js';
import { boundedJson } from '../../../oauth/json-nesting.js';

/** The flat fields of the admin form and JSON API (SPEC 3.6), as the route schema lets them through. */
export interface ApplicationBody {
  name?: string;
  redirect_uri?: string | string[];
  scopes?: string | string[];
  confidential?: boolean | string | string[];
  post_logout_redirect_uris?: string | string[];
  backchannel_logout_uri?: string | null;
  backchannel_logout_session_required?: boolean | string | string[];
  id_token_signed_response_alg?: string | null;
  userinfo_signed_response_alg?: string | null;
  access_token_format?: string | null;
  subject_type?: string | null;
  dpop_bound_access_tokens?: boolean | string | string[];
  require_pushed_authorization_requests?: boolean | string | string[];
  require_signed_request_object?: boolean | string | string[];
  authorization_signed_response_alg?: string | null;
  profile?: string | null;
  refresh_tokens?: string | null;
  grant_types?: string | string[];
  token_endpoint_auth_method?: string | null;
  jwks?: string | Record<string, unknown> | null;
  jwks_uri?: string | null;
  /** The approve form's: the reviewed fields' fingerprint of the page (issue 29 item 3). */
  reviewed?: string;
  _csrf?: string;
  _method?: string;
}

const TRUE_VALUES = new Set(['1', 'true', 'on']);

/**
 * The domain's fields from a form or JSON body. A field that was not sent keeps the application's current
 * value on update (PATCH semantics) and takes the reference's default on create (confidential: true;
 * dpop_bound_access_tokens: false).
 */
export function fieldsFromBody(body: ApplicationBody | undefined, current?: ApplicationRecord): ApplicationFields {
  return {
    name: body?.name ?? current?.name ?? '',
    redirectUri: joined(body?.redirect_uri, '\n') ?? current?.redirectUris.join('\n') ?? '',
    scopes: joined(body?.scopes, ' ') ?? current?.scopes.join(' ') ?? '',
    confidential: checkboxFrom(body?.confidential) ?? current?.confidential ?? true,
    postLogoutRedirectUri: joined(body?.post_logout_redirect_uris, '\n') ?? current?.postLogoutRedirectUris.join('\n') ?? '',
    // Back-Channel Logout 1.0: null or empty means none; the flag is a checkbox like confidential.
    backchannelLogoutUri: algorithmFrom(body?.backchannel_logout_uri) ?? current?.backchannelLogoutUri ?? '',
    backchannelLogoutSessionRequired:
      checkboxFrom(body?.backchannel_logout_session_required) ?? current?.backchannelLogoutSessionRequired ?? false,
    // JSON's null and the form's empty option both mean the default (RS256; plain JSON for UserInfo).
    idTokenSignedResponseAlg: algorithmFrom(body?.id_token_signed_response_alg) ?? current?.idTokenSignedResponseAlg ?? '',
    userinfoSignedResponseAlg: algorithmFrom(body?.userinfo_signed_response_alg) ?? current?.userinfoSignedResponseAlg ?? '',
    // RFC 9068: null or empty means opaque, the default.
    accessTokenFormat: algorithmFrom(body?.access_token_format) ?? current?.accessTokenFormat ?? '',
    // OpenID Connect Core 8: null or empty means public, the default.
    subjectType: algorithmFrom(body?.subject_type) ?? current?.subjectType ?? '',
    // RFC 9449 section 5.2: a checkbox like confidential.
    dpopBoundAccessTokens: checkboxFrom(body?.dpop_bound_access_tokens) ?? current?.dpopBoundAccessTokens ?? false,
    // RFC 9126 section 6: a checkbox like confidential.
    requirePushedAuthorizationRequests:
      checkboxFrom(body?.require_pushed_authorization_requests) ?? current?.requirePushedAuthorizationRequests ?? false,
    // RFC 9101 section 10.5: a checkbox like confidential.
    requireSignedRequestObject: checkboxFrom(body?.require_signed_request_object) ?? current?.requireSignedRequestObject ?? false,
    // JARM section 3: null or empty means RS256, the default.
    authorizationSignedResponseAlg: algorithmFrom(body?.authorization_signed_response_alg) ?? current?.authorizationSignedResponseAlg ?? '',
    // Issue 36: null or empty means none, the default.
    profile: algorithmFrom(body?.profile) ?? current?.profile ?? '',
    // OpenID Connect Core 11: null or empty means always, the default.
    refreshTokens: algorithmFrom(body?.refresh_tokens) ?? (current && refreshTokensValue(current.refreshTokens)) ?? '',
    // Issue 34: blank is every grant the server enables (but the device grant).
    grantTypes: joined(body?.grant_types, ' ') ?? current?.grantTypes?.join(' ') ?? '',
    // Issue 34: null or empty means the default (derived from confidential) and no keys. Left out: what is stored.
    tokenEndpointAuthMethod: algorithmFrom(body?.token_endpoint_auth_method) ?? current?.tokenEndpointAuthMethod ?? '',
    jwks: jwksFrom(body?.jwks) ?? current?.jwks ?? '',
    jwksUri: algorithmFrom(body?.jwks_uri) ?? current?.jwksUri ?? '',
  };
}

/** The fields of an existing application, to fill the edit form. */
export function fieldsOf(application: ApplicationRecord): ApplicationFields {
  return fieldsFromBody(undefined, application);
}

const algorithmFrom = (value: string | null | undefined): string | undefined => (value === null ? '' : value);

/** The domain checks the JWK Set as JSON text, whichever form it came in. */
const jwksFrom = (value: ApplicationBody['jwks']): string | undefined =>
  value !== null && typeof value === 'object' ? boundedJson(value) : algorithmFrom(value);

function joined(value: string | string[] | undefined, separator: string): string | undefined {
  return Array.isArray(value) ? value.join(separator) : value;
}

// The HTML form sends a hidden "0" followed by the checkbox's "1" when it is checked (Rails' convention):
// the last value wins. JSON sends a boolean.
function checkboxFrom(value: boolean | string | string[] | undefined): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  const last = Array.isArray(value) ? value.at(-1) : value;
  return last === undefined ? undefined : TRUE_VALUES.has(last.toLowerCase());
}
