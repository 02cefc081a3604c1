import { vouchedFor } from '../../../oauth/clients/client-approval.js';
import { httpsLink, parsedUrl, returnDestination } from '../../client-links.js';
import { dateLocaleOf } from '../../page-time.js';
import type { ApplicationRecord } from '../../../oauth/store.js';
import type { PageLanguage } from '../../i18n/page-language.js';

/**
 * What the consent page says about a client nobody vetted (issue 19): one that registered itself (RFC 7591) or
 * whose Client ID Metadata Document this server fetched, and that no admin approved. Every value is text the
 * template escapes; `links` hold only https URLs, so a javascript:, data: or http: URI the client supplied is
 * never a link. The logo is left out on purpose: a picture the client chose, on this server's own page, is the
 * easiest way to pass for a brand the user trusts.
 */
export interface SelfRegisteredNotice {
  /** Who did not review it: "the operator of auth.example.com". */
  operator: string;
  /** "It was registered at this server on 25 November 2026." or "Its details are published at ...". */
  origin: string;
  /** Where the user is sent back to: a host, "an application on this device", or an app's URL scheme; null: nowhere (a device's request). */
  returnsTo: string | null;
  links: Array<{ label: string; href: string; host: string }>;
}

export function selfRegisteredNotice(
  application: ApplicationRecord,
  redirectUri: string | null,
  baseUrl: string,
  language: PageLanguage,
): SelfRegisteredNotice | null {
  if (vouchedFor(application)) return null;
  const { t } = language;
  const links = [
    { label: t('consent.website'), uri: application.clientUri },
    { label: t('consent.privacyPolicy'), uri: application.policyUri },
    { label: t('consent.termsOfService'), uri: application.tosUri },
  ].flatMap(({ label, uri }) => {
    const link = httpsLink(uri);
    return link ? [{ label, ...link }] : [];
  });
  return {
    operator: t('consent.operatorOf', { host: new URL(baseUrl).host }),
    origin: originOf(application, language),
    returnsTo: redirectUri === null ? null : returnDestination(redirectUri, language),
    links,
  };
}

function originOf(application: ApplicationRecord, { locale, t }: PageLanguage): string {
  if (application.registeredBy === 'metadata_document') {
    const url = parsedUrl(application.uid);
    return t('consent.publishedAt', { location: url ? `${url.host}${url.pathname}` : application.uid });
  }
  const day = application.createdAt.toLocaleDateString(dateLocaleOf(locale), {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return t('consent.registeredOn', { date: day });
}
