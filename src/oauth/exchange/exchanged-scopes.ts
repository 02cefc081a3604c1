import { assertedScopes } from '../assertions/asserted-scopes.js';
import { heldScopes } from '../clients/client-holdings.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidScope } from '../errors.js';
import { isWellFormedScopeParam, parseScopes } from '../scopes.js';
import type { ApplicationRecord } from '../store.js';
import type { SubjectToken } from './subject-token.js';

/**
 * RFC 8693 section 2.1 scope: never wider than what the subject token stands for (an access token's scopes; a trusted
 * JWT's as the JWT bearer grant bounds them; an ID token, a sign-in that carries none, the scopes the user still
 * authorizes the client for) and within what the client holds. Anything outside is invalid_scope; nothing asked for
 * is all of that.
 */
export function exchangedScopes(
  deps: Pick<OAuthDeps, 'config'>,
  client: ApplicationRecord,
  subject: SubjectToken,
  scope: string | undefined,
): string[] {
  if (subject.type === 'jwt') return assertedScopes(deps, client, subject.assertion, scope);
  const held = heldScopes(client, deps.config);
  const bound = subject.type === 'access_token' ? subject.token.scopes : subject.authorizedScopes;
  const ceiling = bound.filter((name) => held.includes(name));
  if (scope === undefined) {
    if (ceiling.length === 0) throw new InvalidScope();
    return ceiling;
  }
  if (!isWellFormedScopeParam(scope)) throw new InvalidScope();
  const requested = parseScopes(scope);
  if (!requested.every((name) => ceiling.includes(name))) throw new InvalidScope();
  return requested;
}
