import type { GuardError } from './guard-error.js';

// RFC 6750 section 3: auth-param values are quoted-strings limited to %x20-21 / %x23-5B / %x5D-7E; anything else
// (the quote, the backslash, controls, non-ASCII) becomes "_", as the reference does (2.3). The realm is
// sanitised too, so no configured value can break the header. The guard imports nothing of the service, so this
// is its own copy of the service's src/http/error-response.ts; test/unit/guard-sync.test.ts keeps the two equal.
const NOT_HEADER_SAFE = /[^\x20\x21\x23-\x5B\x5D-\x7E]/g;

export function headerSafe(value: string): string {
  return value.replace(NOT_HEADER_SAFE, '_');
}

/** What a protected resource (RFC 9728) adds to its challenges. */
export interface ResourceChallenge {
  /** RFC 9728 section 5.1: the resource's metadata URL. */
  metadataUrl: string;
  /** The scopes of the refusing route, named in its 401 challenge too. */
  scopes: readonly string[];
}

/**
 * The WWW-Authenticate value for a refusal. RFC 6750 section 3.1: when the request carried no token the
 * challenge has no error code (the client may simply not know it needs one); otherwise it names the error, its
 * description and, for insufficient_scope, the scope that would have been enough. With a resource configured,
 * every challenge names the resource's metadata URL (RFC 9728 section 5.1), from which clients (the MCP SDK among
 * them) discover the authorization server, and a 401 names the route's scopes (RFC 6750 section 3 `scope`), which
 * MCP clients ask for instead of every scope the metadata lists. insufficient_user_authentication names the acr_values
 * and max_age the route requires (RFC 9470 section 3).
 */
export function bearerChallenge(realm: string, error: GuardError, resource?: ResourceChallenge): string {
  return `Bearer ${challengeParams(realm, error.reason === 'missing' ? null : error, error.scopes, resource).join(', ')}`;
}

/**
 * The DPoP challenge of RFC 9449 section 7.1: the same parameters as the Bearer one (the error only when `error` is
 * given: the refusal concerns the DPoP scheme), and `algs`, the proof algorithms the resource accepts.
 */
export function dpopChallenge(
  realm: string,
  error: GuardError | null,
  algorithms: readonly string[],
  resource?: ResourceChallenge,
): string {
  const params = challengeParams(realm, error, error?.scopes ?? [], resource);
  params.push(`algs="${headerSafe(algorithms.join(' '))}"`);
  return `DPoP ${params.join(', ')}`;
}

/** A Bearer challenge that names no error, for when the error belongs to the DPoP challenge next to it. */
export function plainBearerChallenge(realm: string, resource?: ResourceChallenge): string {
  return `Bearer ${challengeParams(realm, null, [], resource).join(', ')}`;
}

function challengeParams(realm: string, error: GuardError | null, errorScopes: readonly string[], resource?: ResourceChallenge): string[] {
  const params = [`realm="${headerSafe(realm)}"`];
  if (error) params.push(`error="${error.code}"`, `error_description="${headerSafe(error.description)}"`);
  const scopes = errorScopes.length > 0 ? errorScopes : (resource?.scopes ?? []);
  if (scopes.length > 0) params.push(`scope="${headerSafe(scopes.join(' '))}"`);
  // RFC 9470 section 3: what sign-in would be enough, for the client's next authorization request.
  if (error && error.acrValues.length > 0) params.push(`acr_values="${headerSafe(error.acrValues.join(' '))}"`);
  if (error && error.maxAge !== null) params.push(`max_age="${error.maxAge}"`);
  if (resource) params.push(`resource_metadata="${headerSafe(resource.metadataUrl)}"`);
  return params;
}
