import * as client from 'openid-client';

// Why a sign-in through an upstream identity provider failed (issue 37 item 5), in words the log and the page can use.
// Nothing of a token, a code or a nonce goes into a reason's detail: the openid-client error code and, for a claim
// that did not match, the claim's name.

export type UpstreamFailureReason =
  /** Not reached at all (connection refused, DNS, TLS) or an HTTP answer that is no OAuth answer (5xx, HTML). */
  | 'unreachable'
  /** No answer within the provider's timeoutSeconds. */
  | 'timeout'
  /** It answered with an OAuth error (access_denied at the authorization endpoint, invalid_grant at the token endpoint). */
  | 'error_response'
  /** Its answer failed a check: ID token signature, iss, aud, nonce, expiry; the RFC 9207 iss of the callback. */
  | 'invalid_response'
  /** The callback came to a browser that started no sign-in there (or too long ago). */
  | 'no_pending_sign_in'
  /** The callback's state is not the one this browser was sent with (RFC 6749 section 10.12: CSRF). */
  | 'state_mismatch'
  /** The user's verified email is at none of allowedDomains (or unverified while the list is set). */
  | 'domain_not_allowed'
  /** The linked (or matching) local user is disabled. */
  | 'user_disabled'
  /** No local user, and createUsers is off. */
  | 'no_user'
  /** It gave no subject (the claim mapped to sub). */
  | 'claims_missing'
  /** Its entry in identityProviders cannot be used as it is (a key file gone, an endpoint openid-client refuses). */
  | 'misconfigured';

export class UpstreamFailure extends Error {
  constructor(
    readonly reason: UpstreamFailureReason,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
    this.name = 'UpstreamFailure';
  }
}

const CHECK_FAILED = new Set<string>([
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_JWS_SIGNATURE_VERIFICATION_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_PARSE_ERROR',
  'OAUTH_MISSING_SERVER_METADATA',
  // An ID token signed with an algorithm refused here (alg none, HS256 with the client secret): a forged token, not
  // an outage.
  'OAUTH_UNSUPPORTED_OPERATION',
]);

/** The failure an error while setting a provider up stands for: an upstream's when it is one, else its entry's. */
export function configurationFailureOf(error: unknown): UpstreamFailure {
  try {
    return upstreamFailureOf(error);
  } catch {
    return new UpstreamFailure('misconfigured', error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }
}

/** The failure an error of openid-client (or of fetch) stands for. */
export function upstreamFailureOf(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError)
    return new UpstreamFailure('error_response', `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`);
  if (error instanceof client.WWWAuthenticateChallengeError) return new UpstreamFailure('error_response', challengeDetail(error));
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return new UpstreamFailure('timeout', 'no answer in time');
  if (error instanceof client.ClientError) {
    const code = error.code ?? 'unknown';
    if (error.cause instanceof Error && error.cause.name === 'TimeoutError') return new UpstreamFailure('timeout', 'no answer in time');
    // oauth4webapi's own message names the check (e.g. unexpected ID Token "nonce" claim value), never a value.
    const inner = error.cause instanceof Error && error.cause.message !== error.message ? ` (${error.cause.message})` : '';
    return new UpstreamFailure(CHECK_FAILED.has(code) ? 'invalid_response' : 'unreachable', `${code}: ${error.message}${inner}`);
  }
  if (error instanceof TypeError) {
    const cause = error.cause as { code?: string; name?: string } | undefined;
    if (cause?.name === 'TimeoutError') return new UpstreamFailure('timeout', 'no answer in time');
    return new UpstreamFailure('unreachable', cause?.code ?? error.message);
  }
  throw error;
}

/**
 * RFC 6749 section 5.2: a token endpoint refusing the client's credentials answers 401 with a challenge (and an
 * invalid_client body, which openid-client leaves unread: a wrong or expired client secret); a UserInfo endpoint
 * refusing the token, a Bearer challenge naming its error (RFC 6750 section 3).
 */
function challengeDetail(error: client.WWWAuthenticateChallengeError): string {
  const parameters = error.cause[0]?.parameters ?? {};
  const code = parameters.error ?? (error.status === 401 ? 'invalid_client' : `HTTP ${error.status}`);
  const description = parameters.error_description ? `: ${parameters.error_description}` : '';
  return `${code}${description} (HTTP ${error.status}, WWW-Authenticate ${error.cause.map((challenge) => challenge.scheme).join(', ')})`;
}
