import type { OAuthDeps } from '../../../oauth/deps.js';
import { identitiesOfUser, removalNeedsPassword, type UserIdentity } from '../../../oauth/users/user-identities.js';
import type { PageLanguage } from '../../i18n/page-language.js';
import { pageTime } from '../../page-time.js';

// The account page's "Sign-in identities" (issue 37): the upstream accounts that sign the user in, each with a Remove
// form that names it by issuer and subject (the table's key: hidden fields, POSTed with the page's CSRF token).

export const REMOVE_IDENTITY_PATH = '/account/identities/remove';

/** The section's view model; `error`: the refusal shown above the list (the last way to sign in). */
export async function identitySection(deps: OAuthDeps, userId: number, language: PageLanguage, error: string | null = null) {
  const identities = await identitiesOfUser(deps, userId);
  return {
    // Without a provider to sign in with, and no identity kept from one, the section has nothing to say.
    shown: identities.length > 0 || deps.config.identityProviders.length > 0,
    list: identities.map((identity, index) => identityView(identity, index, language)),
    error,
    action: REMOVE_IDENTITY_PATH,
    // The last identity of a user without a passkey goes only with their password (removeUserIdentity).
    needsPassword: await removalNeedsPassword(deps, identities, userId),
  };
}

function identityView(identity: UserIdentity, index: number, { t, locale }: PageLanguage) {
  return {
    // The row's id on the page: the issuer and subject are free text, unfit for an HTML id.
    id: `identity_${index + 1}`,
    issuer: identity.issuer,
    subject: identity.subject,
    provider: identity.providerName,
    email: identity.email,
    linked: pageTime(identity.createdAt, locale),
    lastUsed: identity.lastSignedInAt === null ? null : pageTime(identity.lastSignedInAt, locale),
    removeLabel: t('identities.removeLabel', { account: identity.email ?? identity.subject, provider: identity.providerName }),
  };
}
