import { OFFLINE_ACCESS } from '../../config/openid-scopes.js';
import type { ApplicationRecord } from '../store.js';

// OpenID Connect Core 1.0 section 11: the offline_access scope asks for a refresh token that works while the user
// is away. While OpenID Connect is on it is honoured only with a response type that returns a code, and only after
// the user saw it on the consent screen. An application decides with `refreshTokens` whether its refresh tokens
// need it (offlineAccess) or come with every code exchange as before (always, the default: the MCP SDK never asks
// for offline_access unless the metadata pushes it and must keep refreshing, shared/CLIENTS.md).

export { OFFLINE_ACCESS };

/**
 * Core 11: "The OP MUST ignore the offline_access request unless the Client is using a response_type value that would
 * result in an Authorization Code being returned". Ignored, not refused: the implicit token is issued without it.
 */
export function withoutIgnoredOfflineAccess(scopes: string[], responseType: string | undefined, openidEnabled: boolean): string[] {
  if (!openidEnabled || responseType === 'code') return scopes;
  return scopes.filter((scope) => scope !== OFFLINE_ACCESS);
}

/**
 * Core 11: "The OP MUST always obtain consent to returning a Refresh Token that enables offline access". This
 * server does it by showing the consent screen, with or without prompt=consent: a client listed in
 * skipAuthorization.clients is not spared it; only consent the user already gave to these very scopes
 * (skipAuthorization.whenPreviouslyAuthorized) counts.
 */
export function asksOfflineAccess(scopes: readonly string[], openidEnabled: boolean): boolean {
  return openidEnabled && scopes.includes(OFFLINE_ACCESS);
}

/** The application's `refreshTokens` setting: whether a token of these scopes may come with a refresh token. */
export function refreshTokenAllowed(application: Pick<ApplicationRecord, 'refreshTokens'>, scopes: readonly string[]): boolean {
  return application.refreshTokens === 'always' || scopes.includes(OFFLINE_ACCESS);
}
