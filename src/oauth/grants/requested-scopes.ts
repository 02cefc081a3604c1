import { heldDefaultScopes, heldScopes, restrictsScopes } from '../clients/client-holdings.js';
import type { OAuthDeps } from '../deps.js';
import { claimsWithinScopes, type ClaimsRequest } from '../openid/claims-request.js';
import { InvalidScope } from '../errors.js';
import { allScopesAllowed, isWellFormedScopeParam, parseScopes } from '../scopes.js';
import type { ApplicationRecord } from '../store.js';

/**
 * The scopes of a client_credentials or password token (SPEC 3.1, reference 8.2 and 8.3): a requested scope
 * must be one the client holds (client-holdings.ts); none requested means the default scopes it holds.
 * `allowEmpty` is the password grant's rule.
 */
export function grantedScopes(
  deps: OAuthDeps,
  application: ApplicationRecord | null,
  scopeParameter: string | undefined,
  { allowEmpty }: { allowEmpty: boolean },
): string[] {
  if (scopeParameter !== undefined) {
    // RFC 6749 section 3.3: scope is a space-delimited list of scope tokens.
    if (!isWellFormedScopeParam(scopeParameter)) throw new InvalidScope();
    const requested = parseScopes(scopeParameter);
    if (!allScopesAllowed(requested, heldScopes(application, deps.config))) throw new InvalidScope();
    return requested;
  }
  const scopes = heldDefaultScopes(application, deps.config);
  // Reference 8.3: an application whose scopes share nothing with the defaults gets invalid_scope, except
  // on the password grant, where a token without scope is issued.
  if (scopes.length === 0 && restrictsScopes(application) && !allowEmpty) throw new InvalidScope();
  return scopes;
}

/** Granted scopes cut to what the client holds now: what the admin removed, or the operator no longer allows, is gone. */
export function currentScopes(scopes: readonly string[], application: ApplicationRecord | null, config: OAuthDeps['config']): string[] {
  if (!restrictsScopes(application)) return [...scopes];
  const held = heldScopes(application, config);
  return scopes.filter((scope) => held.includes(scope));
}

/**
 * The claims asked for by name (OpenID Connect Core 5.5) cut as currentScopes cuts the scopes: a claim of a scope the
 * client no longer holds is not released again (Core 5.4), for a code issued before the change and on every refresh.
 */
export function currentClaims(
  claims: ClaimsRequest | null,
  application: ApplicationRecord | null,
  config: OAuthDeps['config'],
): ClaimsRequest | null {
  return claimsWithinScopes(claims, heldScopes(application, config));
}
