import type { GuardCommonOptions, RemoteIntrospectionOptions } from './types.js';

/** The signature algorithms jwt mode accepts: asymmetric only (RFC 8725 section 3.1; RFC 9068 section 4). */
export type JwtAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

/**
 * jwt mode: the API verifies JWT access tokens (RFC 9068) by itself, with the authorization server's public keys
 * (its `jwks_uri`, fetched and cached), without calling the server per request. A revoked JWT stays usable until
 * its `exp` unless its route is listed in `introspect`; the introspection options are then required.
 */
export interface JwtGuardOptions extends GuardCommonOptions, Partial<RemoteIntrospectionOptions> {
  mode: 'jwt';
  /**
   * The authorization server's issuer identifier (its `iss`, e.g. https://auth.example.com). Its metadata is read
   * from `<issuer>/.well-known/oauth-authorization-server` (RFC 8414 section 3) unless `jwksUri` is given.
   */
  issuer: string;
  /** The API's resource identifier; every token's `aud` must include it (RFC 9068 section 4). */
  resource: string;
  /** The JWKS URL, to skip discovery. */
  jwksUri?: string;
  /** Accepted `alg` values, a subset of RS256, ES256, EdDSA. Default all three. `none` and HS* never are. */
  algorithms?: readonly JwtAlgorithm[];
  /** Tolerance of the `exp`, `nbf` and `iat` checks, in seconds, for clocks that disagree. Default 5. */
  clockToleranceSeconds?: number;
  /**
   * A token signed with a `kid` the cached keys do not hold (a key rotated in, or one retired and dropped) refetches
   * the JWKS at most once per this many seconds; so does a failed refetch. Default 30.
   */
  jwksCooldownSeconds?: number;
  /**
   * Keys older than this are refetched before they verify again; the refetched JWKS replaces them, so a key the
   * authorization server retired verifies nothing later than this many seconds after it left the JWKS. During an
   * outage of the JWKS the cached keys keep verifying. Default 600.
   */
  jwksMaxAgeSeconds?: number;
  /**
   * Which requests also ask the introspection endpoint after the JWT verified, so that a revocation is seen at
   * once: 'never' (default), 'always', or a list of routes, each the route's URL as declared (`request.routeOptions.url`,
   * e.g. '/notes/:id') optionally preceded by its method ('DELETE /notes/:id'). `cacheTtlSeconds` defaults to 0 here.
   */
  introspect?: 'never' | 'always' | readonly string[];
}
