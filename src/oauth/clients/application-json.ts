import type { SigningAlgorithm } from '../keys/signing-keys.js';
import type { ClientProfile } from './application-store.js';
import type { AccessTokenFormat, ApplicationRecord, RegisteredBy, SubjectType, TokenEndpointAuthMethod } from '../store.js';
import { refreshTokensValue, type RefreshTokensValue } from './refresh-token-setting.js';

export interface ApplicationJson {
  id: number;
  name: string;
  uid: string;
  secret?: string;
  redirect_uri: string;
  scopes: string[];
  confidential: boolean;
  post_logout_redirect_uris: string[];
  id_token_signed_response_alg: SigningAlgorithm | null;
  userinfo_signed_response_alg: SigningAlgorithm | null;
  access_token_format: AccessTokenFormat;
  dpop_bound_access_tokens: boolean;
  /** RFC 9126 section 6. */
  require_pushed_authorization_requests: boolean;
  /** RFC 9101 section 10.5. */
  require_signed_request_object: boolean;
  /** OpenID Connect Registration 1.0 section 2: the one algorithm its request objects may be signed with; null: any. */
  request_object_signing_alg: string | null;
  /** JARM section 3; null is RS256. */
  authorization_signed_response_alg: SigningAlgorithm | null;
  /** none or fapi2 (fapi2-profile.ts). */
  profile: ClientProfile;
  subject_type: SubjectType;
  sector_identifier_uri: string | null;
  backchannel_logout_uri: string | null;
  backchannel_logout_session_required: boolean;
  refresh_tokens: RefreshTokensValue;
  /** The grant types it may use, as the form, the CLI and apply files set them; []: every enabled grant but the device grant. */
  grant_types: string[];
  /** RFC 7591 section 2 (issue 34); null: derived from confidential (the secret, or none). */
  token_endpoint_auth_method: TokenEndpointAuthMethod | null;
  /** Registration 1.0 section 2: the one algorithm its client assertions may be signed with; null: any. */
  token_endpoint_auth_signing_alg: string | null;
  /** A private_key_jwt client's public keys (a JWK Set), or where they are fetched. */
  jwks: Record<string, unknown> | null;
  jwks_uri: string | null;
  registered_by: RegisteredBy;
  client_uri: string | null;
  logo_uri: string | null;
  policy_uri: string | null;
  tos_uri: string | null;
  contacts: string[];
  approved_at: string | null;
  disabled_at: string | null;
  used_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Reference 13's attribute object with flat fields, as the admin JSON API answers and `apps ... --json` prints it.
 * Unlike Doorkeeper, which answers the stored hash under `secret` once the record is reloaded, the secret appears
 * only as the plain value right after it was made (SPEC 3.6: shown once, then only its hash remains, and the hash
 * is never shown).
 */
export function applicationJson(application: ApplicationRecord, plainSecret: string | null = null): ApplicationJson {
  return {
    id: application.id,
    name: application.name,
    uid: application.uid,
    ...(plainSecret !== null && { secret: plainSecret }),
    redirect_uri: application.redirectUris.join('\n'),
    scopes: application.scopes,
    confidential: application.confidential,
    post_logout_redirect_uris: application.postLogoutRedirectUris,
    id_token_signed_response_alg: application.idTokenSignedResponseAlg,
    userinfo_signed_response_alg: application.userinfoSignedResponseAlg,
    access_token_format: application.accessTokenFormat,
    dpop_bound_access_tokens: application.dpopBoundAccessTokens,
    require_pushed_authorization_requests: application.requirePushedAuthorizationRequests,
    require_signed_request_object: application.requireSignedRequestObject,
    request_object_signing_alg: application.requestObjectSigningAlg,
    authorization_signed_response_alg: application.authorizationSignedResponseAlg,
    profile: application.profile,
    subject_type: application.subjectType,
    sector_identifier_uri: application.sectorIdentifierUri,
    backchannel_logout_uri: application.backchannelLogoutUri,
    backchannel_logout_session_required: application.backchannelLogoutSessionRequired,
    refresh_tokens: refreshTokensValue(application.refreshTokens),
    grant_types: application.grantTypes ?? [],
    token_endpoint_auth_method: application.tokenEndpointAuthMethod,
    token_endpoint_auth_signing_alg: application.tokenEndpointAuthSigningAlg,
    jwks: application.jwks === null ? null : (JSON.parse(application.jwks) as Record<string, unknown>),
    jwks_uri: application.jwksUri,
    registered_by: application.registeredBy,
    client_uri: application.clientUri,
    logo_uri: application.logoUri,
    policy_uri: application.policyUri,
    tos_uri: application.tosUri,
    contacts: application.contacts,
    approved_at: application.approvedAt?.toISOString() ?? null,
    disabled_at: application.disabledAt?.toISOString() ?? null,
    used_at: application.usedAt?.toISOString() ?? null,
    created_at: application.createdAt.toISOString(),
    updated_at: application.updatedAt.toISOString(),
  };
}
