import { accessTokenFormatError, isAccessTokenFormat } from '../tokens/access-token-format.js';
import { isOutOfBand, registrationErrors, splitRegisteredUris } from '../authorization/redirect-uri.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../keys/signing-keys.js';
import type { ApplicationRecord } from '../store.js';

// An application's OpenID Connect settings (issue 16): where RP-Initiated Logout may send the user back to, and
// how its ID tokens and UserInfo responses are signed (OpenID Connect Registration 1.0 section 2's
// post_logout_redirect_uris, id_token_signed_response_alg and userinfo_signed_response_alg), and the format of its
// access tokens (issue 17, RFC 9068), which is signed with the same keys.

/** The settings as typed in the admin form, the JSON API or the CLI; undefined keeps what is stored (none on create). */
export interface OpenIdSettingsFields {
  /** One URI per line (any whitespace separates), like the redirect URIs. */
  postLogoutRedirectUri?: string | undefined;
  /** RS256, ES256 or EdDSA; blank for the default, RS256. */
  idTokenSignedResponseAlg?: string | undefined;
  /** RS256, ES256 or EdDSA; blank for plain JSON. */
  userinfoSignedResponseAlg?: string | undefined;
  /** JARM section 3: RS256, ES256 or EdDSA for its JWT-secured authorization responses; blank for RS256. */
  authorizationSignedResponseAlg?: string | undefined;
  /** opaque or jwt (RFC 9068); blank for opaque. A resource's own format wins over it. */
  accessTokenFormat?: string | undefined;
}

export type OpenIdSettingsField =
  | 'post_logout_redirect_uris'
  | 'id_token_signed_response_alg'
  | 'userinfo_signed_response_alg'
  | 'authorization_signed_response_alg'
  | 'access_token_format';

const ALGORITHM_LIST = `${SIGNING_ALGORITHMS.slice(0, -1).join(', ')} or ${SIGNING_ALGORITHMS.at(-1)}`;
type AlgorithmField = 'id_token_signed_response_alg' | 'userinfo_signed_response_alg' | 'authorization_signed_response_alg';
const ALGORITHM_LABELS: Record<AlgorithmField, { label: string; blank: string }> = {
  id_token_signed_response_alg: { label: 'ID token signing algorithm', blank: 'leave it blank for RS256' },
  userinfo_signed_response_alg: { label: 'UserInfo signing algorithm', blank: 'leave it blank for plain JSON' },
  authorization_signed_response_alg: { label: 'Authorization response signing algorithm', blank: 'leave it blank for RS256' },
};

/**
 * The rules of the settings, in field order; a field not given (undefined) is not checked. `openidEnabled`: whether
 * there are signing keys for JWT access tokens (left out: there are not). `storedUris`: the post-logout URIs the
 * application already has, which keep passing (redirect-uri.ts registrationErrors `stored`).
 */
export function openIdSettingsErrors(
  fields: OpenIdSettingsFields,
  options: { forceSsl: boolean; openidEnabled?: boolean; storedUris?: readonly string[] },
): Array<[OpenIdSettingsField, string]> {
  const errors: Array<[OpenIdSettingsField, string]> = [];
  for (const uri of splitRegisteredUris(fields.postLogoutRedirectUri ?? '')) {
    const uriOptions = { forceSsl: options.forceSsl, stored: options.storedUris?.includes(uri) ?? false };
    for (const message of postLogoutUriErrors(uri, uriOptions)) errors.push(['post_logout_redirect_uris', message]);
  }
  for (const [field, value] of [
    ['id_token_signed_response_alg', fields.idTokenSignedResponseAlg],
    ['userinfo_signed_response_alg', fields.userinfoSignedResponseAlg],
    ['authorization_signed_response_alg', fields.authorizationSignedResponseAlg],
  ] as const) {
    const message = algorithmError(field, value);
    if (message !== null) errors.push([field, message]);
  }
  const format = fields.accessTokenFormat?.trim();
  if (format !== undefined && format !== '') {
    const message = accessTokenFormatError(format, { openidEnabled: options.openidEnabled ?? false, label: 'Access token format' });
    if (message !== null) errors.push(['access_token_format', message]);
  }
  return errors;
}

// The redirect URIs' registration rules (absolute, no fragment, https or loopback http or a private-use scheme),
// in the post-logout field's words. RP-Initiated Logout 1.0 section 3 compares the URI exactly, as for redirects.
// Exported for RFC 7591 registration (registration/post-logout-redirect-metadata.ts), which adds its own rules.
export function postLogoutUriErrors(uri: string, options: { forceSsl: boolean; stored: boolean }): string[] {
  // An out-of-band URI shows a code to copy; there is nothing to show after a logout.
  if (isOutOfBand(uri)) return ['Post-logout redirect URI cannot be an out-of-band URI.'];
  return registrationErrors(uri, options).map((message) => message.replace(/^Redirect URI /, 'Post-logout redirect URI '));
}

// JOSE algorithm names are case-sensitive (RFC 7515 section 4.1.1): "rs256" is refused, not corrected. "none" is
// refused too: an unsigned ID token is not accepted (issue 16), and plain UserInfo is what blank means.
function algorithmError(field: AlgorithmField, value: string | undefined): string | null {
  if (value === undefined || value.trim() === '' || isSigningAlgorithm(value.trim())) return null;
  const { label, blank } = ALGORITHM_LABELS[field];
  return `${label} must be ${ALGORITHM_LIST}, not ${JSON.stringify(value.slice(0, 40))} (${blank}).`;
}

/** The stored form of the settings that were given (validated first); those not given stay as they are. */
export function storedOpenIdSettings(
  fields: OpenIdSettingsFields,
): Partial<
  Pick<
    ApplicationRecord,
    | 'postLogoutRedirectUris'
    | 'idTokenSignedResponseAlg'
    | 'userinfoSignedResponseAlg'
    | 'authorizationSignedResponseAlg'
    | 'accessTokenFormat'
  >
> {
  const format = fields.accessTokenFormat?.trim();
  return {
    ...(fields.postLogoutRedirectUri !== undefined && { postLogoutRedirectUris: splitRegisteredUris(fields.postLogoutRedirectUri) }),
    ...(fields.idTokenSignedResponseAlg !== undefined && { idTokenSignedResponseAlg: algorithmOrNull(fields.idTokenSignedResponseAlg) }),
    ...(fields.userinfoSignedResponseAlg !== undefined && {
      userinfoSignedResponseAlg: algorithmOrNull(fields.userinfoSignedResponseAlg),
    }),
    ...(fields.authorizationSignedResponseAlg !== undefined && {
      authorizationSignedResponseAlg: algorithmOrNull(fields.authorizationSignedResponseAlg),
    }),
    ...(format !== undefined && { accessTokenFormat: isAccessTokenFormat(format) ? format : 'opaque' }),
  };
}

function algorithmOrNull(value: string): SigningAlgorithm | null {
  const trimmed = value.trim();
  return isSigningAlgorithm(trimmed) ? trimmed : null;
}
