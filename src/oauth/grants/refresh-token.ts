import { authenticateOptionalClient } from '../client-authentication.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidClient, InvalidGrant, InvalidScope } from '../errors.js';
import { optionalParameter, requireParameter } from '../request-parameters.js';
import { isWellFormedScopeParam, narrowScopes, parseScopes } from '../scopes.js';
import { storedForm } from '../secrets.js';
import type { AccessTokenRecord, ApplicationRecord } from '../store.js';
import { issueAccessToken } from '../token-issuer.js';
import { isRefreshUsable } from '../token-state.js';
import type { GrantHandler } from './grant.js';

/**
 * RFC 6749 section 6 with RFC 9700 section 4.14 rotation: the presented refresh token is retired and a new
 * pair issued; presenting a retired one again revokes the whole family (reuse detection), except for the
 * same client within refreshTokens.graceSeconds (a retried request), which gets a new pair of the family.
 */
export const refreshTokenGrant: GrantHandler = async (deps, { parameters, credentials }) => {
  const presented = requireParameter(parameters, 'refresh_token');
  const client = await authenticateOptionalClient(deps, credentials);
  const now = deps.now();
  const token = await deps.stores.accessTokens.findByRefreshToken(storedForm(presented, deps.config.hashTokens));
  if (!token) throw new InvalidGrant();
  if (token.applicationId !== null) {
    // RFC 6749 section 6: a client that was issued credentials must authenticate (SPEC 8).
    if (!client) throw new InvalidClient();
    if (client.id !== token.applicationId) throw new InvalidGrant();
  }
  const scopes = refreshedScopes(optionalParameter(parameters, 'scope'), token, client);

  if (!isRefreshUsable(token, deps.config.refreshTokens.expiresIn, now)) {
    if (withinGraceWindow(deps, token, now)) return { issued: await successor(deps, token, scopes), application: client };
    await detectReuse(deps, token, now);
    throw new InvalidGrant();
  }
  return deps.stores.transaction(async (stores) => {
    // Of two concurrent refreshes of one token exactly one wins the conditional update (SPEC 3.1).
    if (!(await stores.accessTokens.markRefreshed(token.id, now))) {
      if (deps.config.refreshTokens.graceSeconds > 0) return { issued: await successor({ ...deps, stores }, token, scopes), application: client };
      throw new InvalidGrant();
    }
    return { issued: await successor({ ...deps, stores }, token, scopes), application: client };
  });
};

function refreshedScopes(scopeParameter: string | undefined, token: AccessTokenRecord, client: ApplicationRecord | null): string[] {
  if (scopeParameter !== undefined) {
    // RFC 6749 section 6: the requested scope MUST NOT include any scope not originally granted.
    if (!isWellFormedScopeParam(scopeParameter)) throw new InvalidScope();
    const narrowed = narrowScopes(parseScopes(scopeParameter), token.scopes);
    if (narrowed === null) throw new InvalidScope();
    return narrowed;
  }
  if (client && client.scopes.length > 0) return token.scopes.filter((scope) => client.scopes.includes(scope));
  return token.scopes;
}

function successor(deps: OAuthDeps, token: AccessTokenRecord, scopes: string[]) {
  return deps.stores.applications.findById(token.applicationId ?? -1).then((application) =>
    issueAccessToken(
      deps,
      {
        application,
        resourceOwnerId: token.resourceOwnerId,
        scopes,
        grantType: 'refresh_token',
        withRefreshToken: true,
        accessGrantId: token.accessGrantId,
        refreshFamily: token.refreshFamily,
        previousRefreshToken: token.refreshToken ?? '',
        // Reference 5.3: the new token keeps the lifetime of the one it replaces.
        expiresIn: token.expiresIn,
      },
      deps.stores,
    ),
  );
}

function withinGraceWindow(deps: OAuthDeps, token: AccessTokenRecord, now: Date): boolean {
  const { graceSeconds } = deps.config.refreshTokens;
  return graceSeconds > 0 && token.refreshedAt !== null && now.getTime() - token.refreshedAt.getTime() <= graceSeconds * 1000;
}

/** RFC 9700 section 4.14.2: a rotated refresh token used again means it leaked; the family dies. */
async function detectReuse(deps: OAuthDeps, token: AccessTokenRecord, now: Date): Promise<void> {
  if (!deps.config.refreshTokens.reuseDetection || token.refreshedAt === null || token.refreshFamily === null) return;
  await deps.stores.accessTokens.revokeFamily(token.refreshFamily, now);
}
