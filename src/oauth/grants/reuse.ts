import { isDeepStrictEqual } from 'node:util';
import type { Config } from '../../config/types.js';
import type { OAuthDeps } from '../deps.js';
import type { AuthorizationDetail } from '../resources/authorization-details.js';
import type { ApplicationRecord } from '../store.js';
import { requireDpopBinding, type IssuedToken } from '../tokens/token-issuer.js';

/** The token a grant is about to issue, as reuse must match it. */
export interface ReuseQuery {
  applicationId: number;
  resourceOwnerId: number | null;
  scopes: string[];
  at: Date;
  withRefreshToken?: boolean;
  /** RFC 8707: the token's resources; only a token for exactly these is reused. */
  audience: readonly string[];
  /** RFC 9449: the key the token is bound to; null reuses only unbound tokens. */
  dpopJkt: string | null;
  /** RFC 9396: the token's authorization_details; only a token with exactly these is reused (absent: none). */
  authorizationDetails?: readonly AuthorizationDetail[];
}

/** Whether tokens are reused: reuseAccessToken on plain token storage (the config loader refuses it with hashTokens). */
export function reuseEnabled(config: Pick<Config, 'reuseAccessToken' | 'hashTokens'>): boolean {
  return config.reuseAccessToken && !config.hashTokens;
}

/**
 * reuseAccessToken (reference 17.6): an existing live token of the same application, owner, scopes, resources
 * and key binding is returned instead of a new one. Only possible with plain token storage (the config loader
 * refuses reuseAccessToken with hashTokens), because the response must carry the token's value.
 */
export async function reusableToken(deps: OAuthDeps, application: ApplicationRecord, query: ReuseQuery): Promise<IssuedToken | null> {
  // RFC 9449 section 5.2 holds for a reused token as for a new one.
  requireDpopBinding(application, query.dpopJkt);
  if (!reuseEnabled(deps.config)) return null;
  // The binding and the audience are part of the match: a token bound to another key (or to none) and a token
  // for other resources are never handed out.
  const record = await deps.stores.accessTokens.findLiveMatching(query);
  if (!record || !isDeepStrictEqual(record.authorizationDetails, query.authorizationDetails ?? [])) return null;
  return { record, accessToken: record.token, refreshToken: record.refreshToken, reused: true };
}
