import type { OAuthDeps } from '../deps.js';
import { InvalidScope } from '../errors.js';
import { allScopesAllowed, effectiveDefaultScopes, isWellFormedScopeParam, parseScopes } from '../scopes.js';
import type { ApplicationRecord } from '../store.js';

/**
 * The scopes of a client_credentials or password token (SPEC 3.1, reference 8.2 and 8.3): a requested scope
 * must be within the application's scopes if it has any, else the server's; none requested means the default
 * scopes (those of the application's list when it has one). `allowEmpty` is the password grant's rule.
 */
export function grantedScopes(
  deps: OAuthDeps,
  application: ApplicationRecord | null,
  scopeParameter: string | undefined,
  { allowEmpty }: { allowEmpty: boolean },
): string[] {
  const { defaultScopes, optionalScopes } = deps.config;
  const allowed = application && application.scopes.length > 0 ? application.scopes : [...defaultScopes, ...optionalScopes];
  if (scopeParameter !== undefined) {
    // RFC 6749 section 3.3: scope is a space-delimited list of scope tokens.
    if (!isWellFormedScopeParam(scopeParameter)) throw new InvalidScope();
    const requested = parseScopes(scopeParameter);
    if (!allScopesAllowed(requested, allowed)) throw new InvalidScope();
    return requested;
  }
  const scopes = effectiveDefaultScopes(defaultScopes, application?.scopes ?? []);
  // Reference 8.3: an application whose scopes share nothing with the defaults gets invalid_scope, except
  // on the password grant, where a token without scope is issued.
  if (scopes.length === 0 && application && application.scopes.length > 0 && !allowEmpty) throw new InvalidScope();
  return scopes;
}

/** Granted scopes cut to the application's current list (when it has one): what the admin removed is gone. */
export function currentScopes(scopes: readonly string[], application: ApplicationRecord | null): string[] {
  if (!application || application.scopes.length === 0) return [...scopes];
  return scopes.filter((scope) => application.scopes.includes(scope));
}
