import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import { isMediaType } from '../assertions/assertion-checks.js';

// This server signs other JWTs with the keys and for the audiences of its ID tokens (a logout token, a signed UserInfo
// answer, a JWT access token, an ID-JAG): one presented as an ID token (a token exchange's subject, an id_token_hint)
// must be an ID token, not merely a JWT this server signed (RFC 8725 section 3.11).

/** Why a verified JWT of this server is not one of its ID tokens (a phrase: "its typ is at+jwt"), or null. */
export function notAnIdToken(header: ProtectedHeaderParameters, payload: JWTPayload): string | null {
  // This server's ID tokens say typ JWT (token-signer.ts); a logout token says logout+jwt (Back-Channel Logout 1.0
  // section 2.4), a JWT access token at+jwt, an ID-JAG oauth-id-jag+jwt: none of them is a sign-in.
  if (header.typ !== undefined && !isMediaType(header.typ, 'JWT')) return `its typ is ${String(header.typ)}`;
  // Back-Channel Logout 1.0 section 2.4: the events claim marks a logout token (the end of a sign-in), whatever its typ.
  if (payload.events !== undefined) return 'it has an events claim: a logout token';
  // OpenID Connect Core 2: iat and exp are REQUIRED in an ID token (a signed UserInfo answer has neither).
  if (payload.iat === undefined) return 'it has no iat';
  if (payload.exp === undefined) return 'it has no exp';
  return null;
}
