import type { ScopedClaim } from '../../../oauth/openid/standard-claims.js';
import type { PageLanguage } from '../../i18n/page-language.js';

// The standard claims (OpenID Connect Core 5.1) said in words (locales/*.json "claims"), for the consent screen's line
// about the claims a client asks for by name beyond its scopes (Core 5.5): what the user agrees to let it see.

// English lists without the serial comma ("name, email address and phone number"), as the pages always had.
const LIST_LOCALE: Record<string, string> = { en: 'en-GB' };

/** "See your name, email address and phone number"; null when no claim is asked for beyond the scopes. */
export function claimsDescription(claims: readonly ScopedClaim[], language: PageLanguage): string | null {
  if (claims.length === 0) return null;
  const words = claims.map((claim) => language.t(`claims.${claim}`));
  const listed = new Intl.ListFormat(LIST_LOCALE[language.locale] ?? language.locale, { type: 'conjunction' }).format(words);
  const line = language.t('claims.seeYour', { claims: listed });
  // A language that puts the list first ("Ihren Namen ... sehen") still starts the line with a capital.
  return line.charAt(0).toLocaleUpperCase(language.locale) + line.slice(1);
}
