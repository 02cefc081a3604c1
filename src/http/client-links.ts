import { isOutOfBand } from '../oauth/authorization/redirect-uri.js';
import type { PageLanguage } from './i18n/page-language.js';

/**
 * A URI a client supplied (RFC 7591 client_uri, policy_uri, tos_uri) as a link a page may show: only https, and
 * without credentials in it; anything else (javascript:, data:, http:, garbage) is null and never becomes a link.
 * The template escapes both values like any other text.
 */
export function httpsLink(uri: string | null): { href: string; host: string } | null {
  const url = uri === null ? null : parsedUrl(uri);
  if (!url || url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null;
  return { href: url.href, host: url.host };
}

export function parsedUrl(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

// RFC 8252: loopback redirects reach a native app on the user's own machine, private-use schemes the app that
// claimed the scheme; neither has a host worth naming.
export function returnDestination(redirectUri: string, { t }: PageLanguage): string {
  if (isOutOfBand(redirectUri)) return t('consent.returnsToCodePage');
  const url = parsedUrl(redirectUri);
  if (!url) return redirectUri;
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return t('consent.returnsToScheme', { scheme });
  if (isLoopback(url.hostname)) return t('consent.returnsToThisDevice');
  return url.host;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
