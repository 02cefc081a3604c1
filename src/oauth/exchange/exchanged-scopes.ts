import { assertedScopes } from '../assertions/asserted-scopes.js';
import { heldDefaultScopes, heldScopes } from '../clients/client-holdings.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidScope } from '../errors.js';
import { isWellFormedScopeParam, parseScopes } from '../scopes.js';
import type { ApplicationRecord } from '../store.js';
import type { SubjectToken } from './subject-token.js';

/**
 * RFC 8693 section 2.1 scope: never wider than the subject token's (an access token's scopes; a trusted JWT's as the
 * JWT bearer grant bounds them; an ID token carries none, so the client's own) and within what the client holds.
 * Anything outside is invalid_scope; nothing asked for is all of that (an ID token: the client's defaults).
 */
export function exchangedScopes(
  deps: Pick<OAuthDeps, 'config'>,
  client: ApplicationRecord,
  subject: SubjectToken,
  scope: string | undefined,
): string[] {
  if (subject.type === 'jwt') return assertedScopes(deps, client, subject.assertion, scope);
  const held = heldScopes(client, deps.config);
  const ceiling = subject.type === 'access_token' ? subject.token.scopes.filter((name) => held.includes(name)) : [...held];
  if (scope === undefined) {
    const scopes = subject.type === 'access_token' ? ceiling : heldDefaultScopes(client, deps.config);
    if (scopes.length === 0) throw new InvalidScope();
    return scopes;
  }
  if (!isWellFormedScopeParam(scope)) throw new InvalidScope();
  const requested = parseScopes(scope);
  if (!requested.every((name) => ceiling.includes(name))) throw new InvalidScope();
  return requested;
}
