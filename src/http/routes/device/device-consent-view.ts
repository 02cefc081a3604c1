import type { OAuthDeps } from '../../../oauth/deps.js';
import type { EnteredCode } from '../../../oauth/device/device-verification.js';
import type { SignedInUser } from '../../hooks/authenticate-resource-owner.js';
import type { PageLanguage } from '../../i18n/page-language.js';
import { scopeLines, type ConsentModel } from '../authorize/consent-view.js';
import { selfRegisteredNotice } from '../authorize/self-registered-notice.js';
import { displayedUserCode } from '../../../oauth/device/user-code.js';

/**
 * The code flow's consent page for a device's request (RFC 8628 section 3.3), with its warning (section 5.4: a user
 * code someone else sent is remote phishing) and the code to compare; the one hidden field is the user code, looked up
 * again when the form comes back.
 */
export function deviceConsentModel(
  deps: OAuthDeps,
  entered: EnteredCode,
  owner: SignedInUser,
  csrfToken: string,
  language: PageLanguage,
): ConsentModel {
  const { application, authorization } = entered;
  return {
    title: language.t('consent.title'),
    applicationName: application.name,
    selfRegistered: selfRegisteredNotice(application, null, deps.config.baseUrl, language),
    scopes: scopeLines(deps, application.name, authorization.scopes, language),
    fields: [['user_code', entered.userCode]],
    resources: authorization.audience,
    authorizationDetails: [],
    csrfToken,
    username: owner.username,
    action: '/device/decision',
    // As the device shows it, whatever the spelling typed or in the link: the person compares the two.
    deviceUserCode: displayedUserCode(entered.userCode),
  };
}
