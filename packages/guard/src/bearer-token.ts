// RFC 6750 section 2.1: credentials = "Bearer" 1*SP b64token, b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" /
// "~" / "+" / "/" ) *"=". The scheme is case-insensitive (RFC 9110 section 11.1).
const BEARER_SCHEME = /^bearer(?:\s|$)/i;
const BEARER = /^bearer +([^\s]+)$/i;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
// What a request line's header may carry at all (Node.js's default limit on all of a request's headers, 16 KiB): an
// opaque token is 43 characters, but a JWT access token grows with what it carries (RFC 9396 authorization_details,
// a token exchange's act chain, a long aud list), and one this service issued must never be refused for its length.
export const MAX_TOKEN_LENGTH = 16_384;

export type ExtractedToken = { kind: 'none' } | { kind: 'malformed' } | { kind: 'bearer'; token: string };

/**
 * The bearer token of a request, from the Authorization header only. The form-body and query methods of RFC 6750
 * sections 2.2 and 2.3 are deliberately not accepted: a token in a URL ends up in access logs, proxy logs,
 * browser history and Referer headers (RFC 6750 section 5.3, RFC 9700 section 4.3.2), and a form body would tie
 * the guard to one content type. Any other scheme (Basic, MAC, ...) means no token (reference 12.1, P2); a
 * "Bearer" credential that is not one b64token is an invalid token, not looked up.
 */
export function extractBearerToken(authorization: string | undefined): ExtractedToken {
  const value = authorization?.trim() ?? '';
  if (!BEARER_SCHEME.test(value)) return { kind: 'none' };
  if (/^bearer$/i.test(value)) return { kind: 'none' };
  const token = BEARER.exec(value)?.[1];
  if (token === undefined || token.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(token)) return { kind: 'malformed' };
  return { kind: 'bearer', token };
}

const DPOP_SCHEME = /^dpop(?:\s|$)/i;
const DPOP = /^dpop +([^\s]+)$/i;

/** The access token of a request and the scheme it came with. */
export type ExtractedCredentials =
  { kind: 'none' } | { kind: 'malformed'; scheme: 'bearer' | 'dpop' } | { kind: 'bearer' | 'dpop'; token: string };

/**
 * As {@link extractBearerToken}, and with `acceptDpop` the DPoP scheme of RFC 9449 section 7.1 too (`DPoP` 1*SP
 * token68, case-insensitive): its token is only usable with a valid `DPoP` proof. Without `acceptDpop` a DPoP
 * credential is another scheme, i.e. no token, as before.
 */
export function extractCredentials(authorization: string | undefined, acceptDpop: boolean): ExtractedCredentials {
  const value = authorization?.trim() ?? '';
  if (acceptDpop && DPOP_SCHEME.test(value)) {
    if (/^dpop$/i.test(value)) return { kind: 'none' };
    const token = DPOP.exec(value)?.[1];
    if (token === undefined || token.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(token)) return { kind: 'malformed', scheme: 'dpop' };
    return { kind: 'dpop', token };
  }
  const bearer = extractBearerToken(authorization);
  return bearer.kind === 'malformed' ? { kind: 'malformed', scheme: 'bearer' } : bearer;
}
