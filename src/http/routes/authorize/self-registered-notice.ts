import { isOutOfBand } from '../../../oauth/authorization/redirect-uri.js';
import { httpsLink, parsedUrl } from '../../client-links.js';
import type { ApplicationRecord } from '../../../oauth/store.js';

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
): SelfRegisteredNotice | null {
  if (application.registeredBy === 'admin' || application.approvedAt !== null) return null;
  const links = [
    { label: 'Website', uri: application.clientUri },
    { label: 'Privacy policy', uri: application.policyUri },
    { label: 'Terms of service', uri: application.tosUri },
  ].flatMap(({ label, uri }) => {
    const link = httpsLink(uri);
    return link ? [{ label, ...link }] : [];
  });
  return {
    operator: `the operator of ${new URL(baseUrl).host}`,
    origin: originOf(application),
    returnsTo: redirectUri === null ? null : returnDestination(redirectUri),
    links,
  };
}

function originOf(application: ApplicationRecord): string {
  if (application.registeredBy === 'metadata_document') {
    const url = parsedUrl(application.uid);
    return `Its details are published at ${url ? `${url.host}${url.pathname}` : application.uid}, not by this server.`;
  }
  const day = application.createdAt.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  return `It was registered at this server on ${day}.`;
}

// RFC 8252: loopback redirects reach a native app on the user's own machine, private-use schemes the app that
// claimed the scheme; neither has a host worth naming.
function returnDestination(redirectUri: string): string {
  if (isOutOfBand(redirectUri)) return 'a page of this server that shows you a code to copy';
  const url = parsedUrl(redirectUri);
  if (!url) return redirectUri;
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return `the application that opens ${scheme}: links`;
  if (isLoopback(url.hostname)) return 'an application on this device';
  return url.host;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
