import { isIPv4 } from 'node:net';

// Issue 29 item 9: how a redirect URI being registered may name its host. Matching is exact (redirect-uri.ts), so
// none of this is about a request slipping past a registered URI; it is about what a registered URI shows the people
// who read it (the admin approving a client, a user on the consent screen, which names the host it returns to)
// against where a browser really goes. The raw authority is checked, as written: WHATWG URL parsing rewrites
// "127.1" to "127.0.0.1", so a check of `new URL(uri).hostname` alone would see nothing odd.

const USERINFO =
  'Redirect URI must not hold a user name or password before the host (user@host): it makes the URI look like it goes to another host.';
const WILDCARD = 'Redirect URI host must not hold a wildcard (*): redirect URIs are compared exactly, never as patterns.';
const HOST_CHARACTERS = 'Redirect URI host must be a domain name or an IP address (letters, digits, hyphens, underscores and dots).';
const UNOPENABLE = 'Redirect URI host is not one a browser can open.';

// RFC 1123 host names as browsers take them (plus the underscore that real names hold), an IPv6 literal in brackets.
const DNS_HOST = /^[a-z0-9_.-]+$/i;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/i;

/**
 * The problems of the host of a URI being registered, in the same words as redirect-uri.ts registrationErrors (which
 * calls this for every new URI): userinfo (RFC 3986 section 3.2.1; RFC 9700 section 4.1 on URIs that look like
 * another host), a literal "*", and for http(s) (the schemes a browser resolves itself, WHATWG URL's special schemes)
 * any host a browser would read otherwise than it is written: shorthand, hexadecimal, octal and integer IPv4
 * addresses (127.1, 0x7f000001, 0177.0.0.1, 2130706433), a trailing dot after an address, percent-encoding, other
 * forms of an IPv6 address. Letter case does not count.
 */
export function hostProblems(scheme: string, userinfo: string | undefined, host: string): string[] {
  const problems: string[] = [];
  if (userinfo !== undefined) problems.push(USERINFO);
  if (host.includes('*')) problems.push(WILDCARD);
  if (scheme !== 'http' && scheme !== 'https') return problems;
  if (!DNS_HOST.test(host) && !IPV6_LITERAL.test(host)) {
    if (!host.includes('*')) problems.push(HOST_CHARACTERS);
    return problems;
  }
  const read = browserHost(scheme, host);
  if (read === null) problems.push(UNOPENABLE);
  else if (read !== host.toLowerCase()) problems.push(rewrittenHost(host, read));
  return problems;
}

// The host alone, as a browser reads it: a bad port or path is the URI's other problem, not the host's.
function browserHost(scheme: string, host: string): string | null {
  try {
    return new URL(`${scheme}://${host}/`).hostname;
  } catch {
    return null;
  }
}

function rewrittenHost(written: string, read: string): string {
  const form = isIPv4(read) ? 'an IPv4 address not written in plain dotted-decimal form' : 'not written as browsers read it';
  return `Redirect URI host ${written} is ${form} (browsers read it as ${read}): write it as ${read}.`;
}
