import { BlockList, isIP } from 'node:net';
import { registrationErrors } from '../../authorization/redirect-uri.js';

// The URIs a self-registering client may give (RFC 7591 section 2): where codes go (redirect_uris) and what the
// consent screen shows (client_uri, logo_uri, policy_uri, tos_uri). Nobody vetted these clients, so the rules are
// stricter than an admin's.

export const MAX_URI_LENGTH = 2000;

export type ApplicationType = 'web' | 'native';

const LOOPBACK_HOSTS = /^(?:127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;
// RFC 8252 section 7.1: a native app's private-use scheme is a reverse domain name (it holds a period).
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+$/;

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
    return LOOPBACK_HOSTS.test(url.hostname) ? { needs: 'native' } : { problem: `${uri}: http is allowed on a loopback host only` };
  if (PRIVATE_USE_SCHEME.test(scheme)) return { needs: 'native' };
  return { problem: `${uri}: the scheme must be https, loopback http or a reverse-domain private-use scheme` };
}

// Addresses a user's browser must never be made to fetch from the consent screen (a logo): loopback, private,
// link-local (169.254.169.254 is the cloud metadata service), carrier-grade NAT, unspecified, multicast, reserved.
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv6');

// Names that never reach the public internet: localhost (RFC 6761), mDNS, the special-use internal suffixes.
const INTERNAL_NAME = /(?:^|\.)(?:localhost|local|internal|home\.arpa)\.?$/i;

/** True when `hostname` (as URL.hostname gives it: IPv6 in brackets) names this machine or a private network. */
export function isInternalHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
  const v4 = mapped ?? (hex ? hexToIPv4(hex[1]!, hex[2]!) : undefined);
  if (v4 !== undefined) return INTERNAL.check(v4, 'ipv4');
  const family = isIP(bare);
  if (family === 4) return INTERNAL.check(bare, 'ipv4');
  if (family === 6) return INTERNAL.check(bare, 'ipv6');
  // A single label (intranet names such as "metadata") resolves only inside a network.
  return INTERNAL_NAME.test(bare) || !bare.includes('.');
}

const hexToIPv4 = (high: string, low: string) => {
  const [h, l] = [parseInt(high, 16), parseInt(low, 16)];
  return `${h >> 8}.${h & 255}.${l >> 8}.${l & 255}`;
};

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
