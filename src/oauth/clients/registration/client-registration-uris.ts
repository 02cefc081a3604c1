import { isIP } from 'node:net';
import { isPrivateUseScheme, registrationErrors } from '../../authorization/redirect-uri.js';
import { refusedAddressReason } from '../metadata-documents/client-metadata-document-address.js';

// The URIs a self-registering client may give (RFC 7591 section 2): where codes go (redirect_uris) and what the
// consent screen shows (client_uri, logo_uri, policy_uri, tos_uri). Nobody vetted these clients, so the rules are
// stricter than an admin's.

export const MAX_URI_LENGTH = 2000;

export type ApplicationType = 'web' | 'native';

const LOOPBACK_HOSTS = /^(?:127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/**
 * The hosts a self-registered client's http redirect URI may name (RFC 8252 section 7.3, and localhost, which section
 * 8.3 advises against but allows), as URL.hostname gives them: at /oauth/register and in a metadata document alike.
 */
export const isLoopbackRedirectHost = (hostname: string): boolean => LOOPBACK_HOSTS.test(hostname);

export type RedirectUriVerdict = { problem: string } | { needs: ApplicationType | 'either' };

/**
 * RFC 8252 and OpenID Connect Registration section 2 (application_type): https for any client; http only on a
 * loopback host (any port, RFC 8252 section 7.3) and a reverse-domain private-use scheme (section 7.1), both only
 * for native clients. Fragments, script schemes and malformed URIs are refused (RFC 6749 section 3.1.2).
 */
export function redirectUriVerdict(uri: string): RedirectUriVerdict {
  if (uri.length > MAX_URI_LENGTH) return { problem: `a redirect URI is longer than ${MAX_URI_LENGTH} characters` };
  const [problem] = registrationErrors(uri, { forceSsl: false });
  if (problem !== undefined) return { problem: `${uri}: ${problem}` };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { problem: `${uri}: not an absolute URI` };
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'https') return url.hostname === '' ? { problem: `${uri}: https needs a host` } : { needs: 'either' };
  if (scheme === 'http')
    return isLoopbackRedirectHost(url.hostname) ? { needs: 'native' } : { problem: `${uri}: http is allowed on a loopback host only` };
  if (isPrivateUseScheme(scheme)) return { needs: 'native' };
  return { problem: `${uri}: the scheme must be https, loopback http or a reverse-domain private-use scheme` };
}

// Names that never reach the public internet: localhost (RFC 6761), mDNS, the special-use internal suffixes.
const INTERNAL_NAME = /(?:^|\.)(?:localhost|local|internal|home\.arpa)$/i;

/**
 * True when `hostname` (as URL.hostname gives it: IPv6 in brackets) names this machine or a private network. An IP
 * literal is classified by the Client ID Metadata Document fetcher's ranges (one list for every address a client
 * names): loopback, private, link-local (169.254.169.254 is the cloud metadata service), carrier-grade NAT,
 * unspecified, multicast, reserved, and the IPv6 forms that reach an IPv4 address (mapped, translated, NAT64, 6to4,
 * IPv4-compatible, Teredo).
 */
export function isInternalHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0) return refusedAddressReason(bare) !== null;
  // RFC 1034 section 3.1: a trailing dot is the root, so "intranet." is "intranet"; an empty label names nothing.
  const labels = bare.split('.').filter((label) => label !== '');
  // A single label (intranet names such as "metadata") resolves only inside a network.
  return labels.length < 2 || INTERNAL_NAME.test(labels.join('.'));
}

/**
 * RFC 7591 section 2 display URIs (client_uri, logo_uri, policy_uri, tos_uri): absolute https URLs on public
 * hosts, without credentials. The consent screen links to them and shows the logo, so a user's browser fetches
 * them: one on an internal address would make it probe the user's network or a metadata service.
 */
export function displayUriProblem(name: string, value: string): string | null {
  if (value.length > MAX_URI_LENGTH) return `${name} is longer than ${MAX_URI_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${name} must be an absolute https URL.`;
  }
  if (url.protocol !== 'https:') return `${name} must be an https URL.`;
  if (url.username !== '' || url.password !== '') return `${name} must not hold credentials.`;
  if (isInternalHost(url.hostname)) return `${name} must not point at a loopback, private or link-local host.`;
  return null;
}
