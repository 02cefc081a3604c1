import type { Config } from '../../../config/types.js';
import { postLogoutUriErrors } from '../application-openid-settings.js';
import { InvalidClientMetadata } from './client-registration-errors.js';
import { MAX_URI_LENGTH, redirectUriVerdict, type ApplicationType } from './client-registration-uris.js';

// OpenID Connect RP-Initiated Logout 1.0 section 3.1's registration metadata, post_logout_redirect_uris, while OpenID
// Connect is on; off, metadata this server does not act on, ignored (RFC 7591 section 2) as the back-channel logout
// fields are (backchannel-logout-metadata.ts). Each URI follows the admin's rules for post-logout redirect URIs
// (application-openid-settings.ts: those of redirect URIs, no out-of-band URI) and, since nobody vetted the client,
// the rules registration holds its redirect_uris to (client-registration-uris.ts redirectUriVerdict): https for any
// client; loopback http and reverse-domain private-use schemes for native clients only. end_session sends the user's
// browser there (matched exactly, openid/end-session.ts): the server never connects to it.

/** As many as redirect_uris may hold (client-registration-metadata.ts MAX_REDIRECT_URIS). */
export const MAX_POST_LOGOUT_REDIRECT_URIS = 20;
const FIELD = 'post_logout_redirect_uris';

export interface PostLogoutRedirectMetadata {
  post_logout_redirect_uris?: string[];
}

export function postLogoutRedirectMetadataOf(
  body: Record<string, unknown>,
  config: Pick<Config, 'openid'>,
  applicationType: ApplicationType,
): PostLogoutRedirectMetadata {
  if (!config.openid.enabled) return {};
  const value = body.post_logout_redirect_uris;
  if (value === undefined) return {};
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new InvalidClientMetadata(`${FIELD} must be an array of strings.`);
  if (value.length > MAX_POST_LOGOUT_REDIRECT_URIS)
    throw new InvalidClientMetadata(`${FIELD} may hold at most ${MAX_POST_LOGOUT_REDIRECT_URIS} values.`);
  // As for redirect_uris: a URI listed twice is kept once, in the order first given (matching is exact).
  const uris = [...new Set(value as string[])];
  for (const uri of uris) {
    const problem = postLogoutRedirectUriProblem(uri, applicationType);
    if (problem !== null) throw new InvalidClientMetadata(`${FIELD}: ${problem}`);
  }
  return { post_logout_redirect_uris: uris };
}

// The first problem of one URI, named by the URI as redirect_uris' are ("<uri>: Redirect URI cannot contain ...").
function postLogoutRedirectUriProblem(uri: string, applicationType: ApplicationType): string | null {
  if (uri.length > MAX_URI_LENGTH) return `a URI is longer than ${MAX_URI_LENGTH} characters.`;
  // forceSsl off: which client may use http is the registration rule below (as checkAdminRules does for redirect_uris).
  const [adminProblem] = postLogoutUriErrors(uri, { forceSsl: false, stored: false });
  if (adminProblem !== undefined) return `${uri}: ${adminProblem}`;
  const verdict = redirectUriVerdict(uri);
  if ('problem' in verdict) return `${verdict.problem}.`;
  if (verdict.needs === 'native' && applicationType === 'web')
    return `${uri}: a web client may register https post-logout redirect URIs only.`;
  return null;
}
