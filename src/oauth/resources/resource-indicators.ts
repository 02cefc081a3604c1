import { OPENID_SCOPES as OPENID_SCOPE_LIST } from '../../config/openid-scopes.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidTarget } from '../errors.js';
import type { AccessTokenFormat, ApplicationRecord, ResourceRecord } from '../store.js';

// RFC 8707: the resources a client names for a token. Each must be an absolute URI without a fragment, registered
// here, and the requested scopes must be accepted by the resources named (each scope by at least one of them);
// OpenID Connect's scopes (offline_access included, Core 11) are about this server's own UserInfo and sign-in and
// pass regardless. A token's audience is the resources named; with none, behaviour is what it was before resources
// existed (no audience).

const OPENID_SCOPES = new Set(OPENID_SCOPE_LIST);

/** The audience of a token and what its resources say about the token. */
export interface Audience {
  uris: string[];
  resources: ResourceRecord[];
}

export const NO_AUDIENCE: Audience = { uris: [], resources: [] };

/** Section 2: absolute (a scheme, and for http(s) a host), no fragment. */
export function isResourceIndicator(value: string): boolean {
  if (value.trim() !== value || value === '' || value.includes('#')) return false;
  try {
    const url = new URL(value);
    return url.protocol !== 'http:' && url.protocol !== 'https:' ? /^[a-z][a-z0-9+.-]*:/i.test(value) : url.host !== '';
  } catch {
    return false;
  }
}

/** The registered resources named by `uris`, checked against the scopes asked for; throws InvalidTarget. */
export async function resolveAudience(
  deps: Pick<OAuthDeps, 'stores' | 'config'>,
  uris: readonly string[],
  scopes: readonly string[],
): Promise<Audience> {
  const unique = [...new Set(uris)];
  if (unique.length === 0) return NO_AUDIENCE;
  const resources = unique.every(isResourceIndicator) ? await deps.stores.resources.findByUris(unique) : [];
  const problem = audienceProblem(unique, resources, scopes);
  if (problem !== null) throw new InvalidTarget(problem);
  return { uris: unique, resources };
}

/** Why these resources cannot be the audience of a token with these scopes (invalid_target), or null. */
export function audienceProblem(uris: readonly string[], resources: readonly ResourceRecord[], scopes: readonly string[]): string | null {
  if (!uris.every(isResourceIndicator)) return 'The resource must be an absolute URI without a fragment.';
  const unknown = uris.find((uri) => !resources.some((resource) => resource.uri === uri));
  if (unknown !== undefined) return `The resource ${unknown} is not registered.`;
  const refused = scopes.find((scope) => !acceptedBy(resources, scope));
  return refused === undefined ? null : `The scope ${refused} is not accepted by the requested resources.`;
}

/**
 * Section 2.2: a token request (code exchange, refresh) may narrow the audience granted before, never widen it.
 * Nothing named keeps the granted audience. A grant without resources is not consent for any one of them (the
 * consent screen asks again for a request that names one), so naming one there is invalid_target too.
 */
export async function narrowedAudience(
  deps: Pick<OAuthDeps, 'stores' | 'config'>,
  requested: readonly string[],
  granted: readonly string[],
): Promise<Audience> {
  if (requested.length === 0) return granted.length === 0 ? NO_AUDIENCE : audienceOf(deps, granted, 'granted');
  const outside = requested.find((uri) => !granted.includes(uri));
  if (outside !== undefined) throw new InvalidTarget(`The resource ${outside} was not granted.`);
  return audienceOf(deps, requested, 'named');
}

/** The granted scopes a narrowed audience still accepts; none left is invalid_target. */
export function scopesForAudience(audience: Audience, scopes: readonly string[]): string[] {
  if (audience.uris.length === 0) return [...scopes];
  const kept = scopes.filter((scope) => acceptedBy(audience.resources, scope));
  if (kept.length === 0) throw new InvalidTarget('None of the granted scopes is accepted by the requested resources.');
  return kept;
}

/** RFC 9068: JWT when every resource of the audience says so; with no audience, the application's choice. */
export function accessTokenFormat(audience: Audience, application: ApplicationRecord | null): AccessTokenFormat {
  if (audience.resources.length > 0) return audience.resources.every((resource) => resource.tokenFormat === 'jwt') ? 'jwt' : 'opaque';
  return application?.accessTokenFormat ?? 'opaque';
}

/**
 * A resource's own lifetime replaces `fallback`; with several resources the shortest of theirs, a resource without
 * one counting with `fallback` (naming a day-long resource beside it must not stretch its token); null: none expires.
 */
export function audienceLifetime(audience: Audience, fallback: number | null): number | null {
  if (audience.resources.length === 0) return fallback;
  const lifetimes = audience.resources.map((resource) => resource.accessTokenLifetime ?? fallback).filter((seconds) => seconds !== null);
  return lifetimes.length === 0 ? null : Math.min(...lifetimes);
}

function acceptedBy(resources: readonly ResourceRecord[], scope: string): boolean {
  return OPENID_SCOPES.has(scope) || resources.some((resource) => resource.scopes.includes(scope));
}

/**
 * The audience of URIs granted before (or a subset of them), each once: a resource deleted since is no longer one
 * (invalid_target, as when a request names it), so a refresh does not go on minting tokens for it. The message says
 * whether the client named it or the grant did (a refresh naming nothing would be told of a parameter it never sent).
 */
async function audienceOf(deps: Pick<OAuthDeps, 'stores'>, uris: readonly string[], from: 'named' | 'granted'): Promise<Audience> {
  const unique = [...new Set(uris)];
  const resources = await deps.stores.resources.findByUris(unique);
  const gone = unique.find((uri) => !resources.some((resource) => resource.uri === uri));
  if (gone === undefined) return { uris: unique, resources };
  if (from === 'named') throw new InvalidTarget(`The resource ${gone} is not registered.`);
  throw new InvalidTarget(
    `The resource ${gone} this grant was issued for is no longer registered: name the resources still wanted in the resource parameter, or authorize again.`,
  );
}
