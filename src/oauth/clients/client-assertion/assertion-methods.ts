// The two JWT client authentication methods and what they verify with: read by settings, discovery and the admin
// pages as well as by authentication, so they live apart from the JWT handling (a CLI command never loads jose).

export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The two JWT methods of RFC 7591 section 2 / OpenID Connect Core 9, and the algorithms each verifies with. */
export const ASSERTION_ALGORITHMS = {
  // Ed25519: RFC 9864's name for EdDSA with an Ed25519 key, which oauth4webapi and openid-client put in the header.
  private_key_jwt: ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'],
  client_secret_jwt: ['HS256'],
} as const;
export type AssertionMethod = keyof typeof ASSERTION_ALGORITHMS;
export const isAssertionMethod = (method: string | null): method is AssertionMethod =>
  method === 'private_key_jwt' || method === 'client_secret_jwt';
