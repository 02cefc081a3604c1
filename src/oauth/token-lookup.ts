import type { OAuthDeps } from './deps.js';
import { storedForm } from './secrets.js';
import type { AccessTokenRecord } from './store.js';

export interface FoundToken {
  record: AccessTokenRecord;
  /** Which value matched: the access token or the refresh token of the row. */
  kind: 'access_token' | 'refresh_token';
}

/**
 * RFC 7009 section 2.1 / RFC 7662 section 2.1: token_type_hint only decides where to look first; a wrong or
 * unknown hint still finds the token (SPEC 3.2, 3.3).
 */
export async function findTokenByValue(deps: OAuthDeps, value: string, hint: string | undefined): Promise<FoundToken | null> {
  const stored = storedForm(value, deps.config.hashTokens);
  const tokens = deps.stores.accessTokens;
  const order: FoundToken['kind'][] = hint === 'refresh_token' ? ['refresh_token', 'access_token'] : ['access_token', 'refresh_token'];
  for (const kind of order) {
    const record = kind === 'access_token' ? await tokens.findByToken(stored) : await tokens.findByRefreshToken(stored);
    if (record) return { record, kind };
  }
  return null;
}

/** The access token of a Bearer credential, or null. */
export async function findAccessToken(deps: OAuthDeps, value: string): Promise<AccessTokenRecord | null> {
  return deps.stores.accessTokens.findByToken(storedForm(value, deps.config.hashTokens));
}
