// RFC 8414 section 2 and RFC 9207 section 2: this server's issuer identifier, baseUrl without a trailing slash. The
// metadata's issuer, the `iss` of authorization responses, ID tokens and JWT access tokens, and the htu of token
// requests' DPoP proofs are this one value.
export function authorizationIssuer(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}
