import { heldDefaultScopes, heldScopes } from '../clients/client-holdings.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidScope } from '../errors.js';
import { isWellFormedScopeParam, parseScopes } from '../scopes.js';
import type { ApplicationRecord } from '../store.js';
import type { VerifiedAssertion } from './assertion-checks.js';

/**
 * The scopes of a token for an assertion: within what the trusted issuer may grant (config), what the client holds
 * and, when the assertion carries a scope claim (the ID-JAG's), what the issuer granted (the draft's processing rules
 * apply RFC 6749 section 3.3 to it). A scope asked for outside that is invalid_scope; none asked for is the
 * assertion's scopes, else the client's defaults, within the same bounds.
 */
export function assertedScopes(
  deps: Pick<OAuthDeps, 'config'>,
  application: ApplicationRecord,
  assertion: VerifiedAssertion,
  scopeParameter: string | undefined,
): string[] {
  const asserted = typeof assertion.claims.scope === 'string' ? parseScopes(assertion.claims.scope) : null;
  const held = heldScopes(application, deps.config);
  const allowed = assertion.entry.scopes.filter((scope) => held.includes(scope) && (asserted === null || asserted.includes(scope)));
  if (scopeParameter !== undefined) {
    if (!isWellFormedScopeParam(scopeParameter)) throw new InvalidScope();
    const requested = parseScopes(scopeParameter);
    if (!requested.every((scope) => allowed.includes(scope))) throw new InvalidScope();
    return requested;
  }
  const scopes = (asserted ?? heldDefaultScopes(application, deps.config)).filter((scope) => allowed.includes(scope));
  if (scopes.length === 0) throw new InvalidScope();
  return scopes;
}
