import type { OAuthDeps } from '../deps.js';
import { effectiveDefaultScopes } from '../scopes.js';
import type { ApplicationRecord } from './application-store.js';

// What a client may hold: its scopes and its grant types, the one answer that /oauth/authorize, every grant and
// registration ask for (issue 29). An application an admin made keeps Doorkeeper's rule (reference 8.2): its own
// scopes, or every server scope when it lists none, and every grant the server enables. A client that registered
// itself (RFC 7591, or a Client ID Metadata Document) holds only what it registered and the operator allows: the
// registration policy (registration.allowedScopes / allowedGrantTypes) and what the initial access token it
// registered with added (operatorScopes / operatorGrantTypes). Having registered no scope, it holds the default
// scopes the operator allows: never every server scope, which a stranger would otherwise get by asking for nothing.

type Config = OAuthDeps['config'];

/** What the operator allows beyond the registration policy: an initial access token's, or the row that remembers it. */
export interface OperatorExtras {
  grantTypes: readonly string[];
  scopes: readonly string[];
}

export const NO_EXTRAS: OperatorExtras = { grantTypes: [], scopes: [] };

/** The grant types and scopes a self-registered client may register and hold: the policy's and the extras. */
export function operatorAllowance(config: Config, extras: OperatorExtras): { grantTypes: Set<string>; scopes: Set<string> } {
  return {
    grantTypes: new Set([...config.registration.allowedGrantTypes, ...extras.grantTypes]),
    scopes: new Set([...config.registration.allowedScopes, ...extras.scopes]),
  };
}

type Allowance = ReturnType<typeof operatorAllowance>;
const NOT_ALLOWED = 'is not allowed for clients that register themselves here';

/** RFC 7591 section 3.2.2: why a registration may not name this grant type (naming it), or null. */
export function grantTypeProblem(grantType: string, allowance: Allowance): string | null {
  return allowance.grantTypes.has(grantType) ? null : `grant_types: ${grantType} ${NOT_ALLOWED}`;
}

/** RFC 7591 section 3.2.2: why a registration may not name these scopes (the first one refused, named), or null. */
export function scopeProblem(scopes: readonly string[], config: Config, allowance: Allowance): string | null {
  const offered = new Set([...config.defaultScopes, ...config.optionalScopes]);
  for (const scope of scopes) {
    if (!offered.has(scope)) return `scope: ${scope} is not a scope this server offers`;
    if (!allowance.scopes.has(scope)) return `scope: ${scope} ${NOT_ALLOWED}`;
  }
  return null;
}

/** What the operator allowed this self-registered client beyond the policy, as its row remembers it. */
export const operatorExtrasOf = (application: ApplicationRecord): OperatorExtras => ({
  grantTypes: application.operatorGrantTypes,
  scopes: application.operatorScopes,
});

/**
 * Whether the client has a scope list of its own, so that a request within nothing is invalid_scope: a self-registered
 * client always, an admin's application when it lists scopes (reference 8.3).
 */
export function restrictsScopes(application: ApplicationRecord | null): application is ApplicationRecord {
  return application !== null && (application.registeredBy !== 'admin' || application.scopes.length > 0);
}

/** Every scope the client may be granted (null: a token without an application, which any server scope may carry). */
export function heldScopes(application: ApplicationRecord | null, config: Config): readonly string[] {
  if (application === null || application.registeredBy === 'admin')
    return application !== null && application.scopes.length > 0 ? application.scopes : [...config.defaultScopes, ...config.optionalScopes];
  const allowed = operatorAllowance(config, operatorExtrasOf(application)).scopes;
  const registered = application.scopes.length > 0 ? application.scopes : config.defaultScopes;
  return registered.filter((scope) => allowed.has(scope));
}

/** The scopes a request that names none gets (reference 4.2 and 8.3): the server's defaults the client holds. */
export function heldDefaultScopes(application: ApplicationRecord | null, config: Config): string[] {
  if (application === null || application.registeredBy === 'admin')
    return effectiveDefaultScopes(config.defaultScopes, application?.scopes ?? []);
  // Not effectiveDefaultScopes: an empty holding is nothing held here, not the server's defaults.
  const held = new Set(heldScopes(application, config));
  return config.defaultScopes.filter((scope) => held.has(scope));
}

/**
 * Whether the client may use this grant type; RFC 6749 section 5.2 unauthorized_client otherwise. A self-registered
 * client uses only the grants it registered (RFC 7591 section 2) that the operator allows. client_credentials gets a
 * token no user consented to, so it also needs the operator's word for this very client: an initial access token
 * that allowed it, or an admin's approval (`apps approve`).
 */
export function holdsGrantType(application: ApplicationRecord | null, grantType: string, config: Config): boolean {
  if (application === null || application.grantTypes === null) return true;
  if (!application.grantTypes.includes(grantType)) return false;
  if (application.registeredBy === 'admin') return true;
  const byToken = application.operatorGrantTypes.includes(grantType);
  if (!byToken && !(config.registration.allowedGrantTypes as readonly string[]).includes(grantType)) return false;
  return grantType !== 'client_credentials' || byToken || application.approvedAt !== null;
}
