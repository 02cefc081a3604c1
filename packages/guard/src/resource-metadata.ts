import { LOOPBACK } from './remote-settings.js';
import type { ServiceGuardOptions } from './types.js';

/** RFC 9728 section 3: the well-known URI suffix of protected resource metadata. */
export const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The protected resource this guard stands for, with its metadata, checked once at registration. */
export interface ResourceSettings {
  /** The resource identifier exactly as configured: the tokens' `aud` must hold this string. */
  resource: string;
  /** RFC 9728 section 3.1: where the metadata is, named in every challenge (section 5.1). */
  metadataUrl: string;
  /** The paths the plugin serves the document at: the path-suffixed one, and the bare well-known path. */
  metadataPaths: readonly string[];
  /** The RFC 9728 section 2 document. */
  document: Readonly<Record<string, unknown>>;
  acceptTokensWithoutAudience: boolean;
}

/** The resource settings of the options, or null when no `resource` is configured. Throws on invalid options. */
export function resourceSettings(
  options: ServiceGuardOptions,
  dpop: { algorithms: readonly string[]; required: boolean } | null = null,
): ResourceSettings | null {
  if (options.resource === undefined) {
    if (options.mode === 'jwt')
      throw new TypeError('serviceGuard: jwt mode needs `resource`, the identifier every token audience must include');
    return null;
  }
  const url = absoluteUrl('resource', options.resource);
  // RFC 9728 section 1.2 / RFC 8707 section 2: no fragment; a query is tolerated by the RFCs but not here, so the
  // metadata URL stays a plain path the plugin can route.
  if (url.hash !== '' || options.resource.includes('#')) throw new TypeError('serviceGuard: resource must not have a fragment');
  if (url.search !== '' || options.resource.includes('?')) throw new TypeError('serviceGuard: resource must not have a query');
  // The metadata's path is routed by Fastify, which matches decoded paths and reads ":" and "*" as patterns: a path of
  // other characters ("/a%20b", "/v1:beta") would be published in every challenge and never answered.
  if (!/^[A-Za-z0-9\-._~/]*$/.test(url.pathname))
    throw new TypeError(
      `serviceGuard: resource's path may hold only letters, digits, "-", ".", "_", "~" and "/" (its metadata URL is a route), got ${JSON.stringify(url.pathname)}`,
    );
  const path = url.pathname === '/' ? '' : url.pathname;
  const authorizationServers = options.authorizationServers ?? defaultAuthorizationServers(options);
  authorizationServers.forEach((server) => absoluteUrl('authorizationServers', server));
  if (options.resourceDocumentation !== undefined) absoluteUrl('resourceDocumentation', options.resourceDocumentation);
  for (const scope of options.scopesSupported ?? []) {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) throw new TypeError(`serviceGuard: ${JSON.stringify(scope)} is not a scope`);
  }
  return {
    resource: options.resource,
    metadataUrl: `${url.origin}${WELL_KNOWN}${path}`,
    metadataPaths: [...new Set([`${WELL_KNOWN}${path}`, WELL_KNOWN])],
    document: Object.freeze(
      protectedResourceMetadata({ ...options, resource: options.resource, authorizationServers, dpop }) as Record<string, unknown>,
    ),
    acceptTokensWithoutAudience: options.acceptTokensWithoutAudience ?? options.mode !== 'jwt',
  };
}

/**
 * RFC 9728 section 2: the metadata document. Only the fields that hold for this guard: the bearer token is read
 * from the Authorization header only (RFC 6750 section 2.1), and the resource does not sign responses, so `jwks_uri`
 * and `resource_signing_alg_values_supported` are left out, as are the mTLS fields. With DPoP on, the proof
 * algorithms (`dpop_signing_alg_values_supported`) and, when every route requires DPoP,
 * `dpop_bound_access_tokens_required: true`.
 */
export function protectedResourceMetadata(
  options: Pick<ServiceGuardOptions, 'scopesSupported' | 'resourceName' | 'resourceDocumentation'> & {
    resource: string;
    authorizationServers: readonly string[];
    dpop?: { algorithms: readonly string[]; required: boolean } | null;
  },
): Record<string, unknown> {
  return {
    resource: options.resource,
    ...(options.authorizationServers.length > 0 && { authorization_servers: [...options.authorizationServers] }),
    ...(options.scopesSupported !== undefined && { scopes_supported: [...options.scopesSupported] }),
    bearer_methods_supported: ['header'],
    ...(options.resourceName !== undefined && { resource_name: options.resourceName }),
    ...(options.resourceDocumentation !== undefined && { resource_documentation: options.resourceDocumentation }),
    ...(options.dpop && { dpop_signing_alg_values_supported: [...options.dpop.algorithms] }),
    ...(options.dpop?.required && { dpop_bound_access_tokens_required: true }),
  };
}

// RFC 9728 section 2 `authorization_servers` holds issuer identifiers (RFC 8414). jwt mode knows its issuer;
// remote mode only knows the introspection URL, whose origin is the issuer of a server at the root of its host.
function defaultAuthorizationServers(options: ServiceGuardOptions): string[] {
  if (options.mode === 'jwt') return [options.issuer];
  if (options.mode === 'remote' && URL.canParse(options.introspectionUrl)) return [new URL(options.introspectionUrl).origin];
  return [];
}

function absoluteUrl(name: string, value: unknown): URL {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  const secure = url !== null && (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname)));
  if (!url || !secure) {
    throw new TypeError(`serviceGuard: ${name} must be an absolute https URL (http for loopback only), got ${JSON.stringify(value)}`);
  }
  return url;
}
