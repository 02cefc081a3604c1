import type { RefreshTokenPolicy } from './application-store.js';

// An application's refreshTokens setting (OpenID Connect Core 1.0 section 11, issue 31 item 1) as the admin form,
// the JSON API, RFC 7591 registration and the CLI spell it: "always" (the default: every code exchange of a client
// holding the refresh_token grant gets a refresh token), or "offline_access" (only when that scope was granted).

export const REFRESH_TOKENS_VALUES = ['always', 'offline_access'] as const;
export type RefreshTokensValue = (typeof REFRESH_TOKENS_VALUES)[number];

/** The setting's name where applications are managed. */
export const refreshTokensValue = (policy: RefreshTokenPolicy): RefreshTokensValue =>
  policy === 'offlineAccess' ? 'offline_access' : 'always';

/** The stored policy of a value given (validated first): blank is the default, always. */
export const refreshTokenPolicyOf = (value: string): RefreshTokenPolicy => (value.trim() === 'offline_access' ? 'offlineAccess' : 'always');

/** Why a given value is not a setting (naming it, in `label`'s words), or null; blank means the default. */
export function refreshTokensError(value: string, label: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '' || (REFRESH_TOKENS_VALUES as readonly string[]).includes(trimmed)) return null;
  return `${label} must be always or offline_access, not ${JSON.stringify(trimmed.slice(0, 40))}.`;
}
