import { isIPv6 } from 'node:net';
import { hostProblems } from '../clients/registration/redirect-uri-host.js';

// Redirect URIs: registration rules (reference 7.1), matching (SPEC 3.5, RFC 9700 section 4.1.3: exact string
// matching, with RFC 8252 section 7.3's loopback port exception) and building the response redirect
// (reference 4.5, Doorkeeper 6 query merging). URIs are parsed with RFC 3986's grammar rather than WHATWG
// `URL`, which would normalise them and accept things RFC 3986 rejects.

export const OOB_URI = 'urn:ietf:wg:oauth:2.0:oob';
const OOB_AUTO_URI = 'urn:ietf:wg:oauth:2.0:oob:auto';

const INVALID = 'Redirect URI must be a valid URI.';
const FORBIDDEN = 'Redirect URI is forbidden by the server.';
const FRAGMENT = 'Redirect URI cannot contain a fragment.';
const NO_SCHEME = 'Redirect URI must specify a scheme.';
const RELATIVE = 'Redirect URI must be an absolute URI.';
const NOT_SSL = 'Redirect URI must be an HTTPS/SSL URI.';

// Schemes that would run script if a browser followed them (the form_post page posts to the redirect URI):
// forbidden even where the URI has other problems, so that the message says so.
const SCRIPT_SCHEMES = new Set(['javascript', 'data', 'vbscript']);
const HTTP_SCHEMES = new Set(['http', 'https']);
// RFC 8252 section 7.1: a native app's private-use scheme is a domain name it controls, in reverse order
// (com.example.app), so it has at least one period; no scheme registered for anything else (file, ftp, ws, blob,
// intent, chrome-extension, ...) looks like that.
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+$/;

/**
 * The schemes a redirect URI may use, for every way of registering one (admin form, admin JSON API, CLI): http(s),
 * and a native app's private-use scheme. Anything else is "forbidden by the server" (Doorkeeper's
 * forbid_redirect_uri), `javascript:`, `data:` and `file:` included.
 */
export function isAllowedRedirectScheme(scheme: string): boolean {
  const lower = scheme.toLowerCase();
  return HTTP_SCHEMES.has(lower) || isPrivateUseScheme(lower);
}

/** A reverse-domain private-use scheme (RFC 8252 section 7.1), lower case as URL.protocol gives it. */
export const isPrivateUseScheme = (scheme: string): boolean => PRIVATE_USE_SCHEME.test(scheme);

type UriParts = {
  scheme: string | undefined;
  authority: string | undefined;
  userinfo: string | undefined;
  host: string | undefined;
  port: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
};

// RFC 3986 section 2: unreserved, reserved, or a %XX escape; validated once so the component checks below can
// treat "%" as an ordinary character.
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const URI_COMPONENTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/; // RFC 3986 appendix B
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const USERINFO = /^[A-Za-z0-9\-._~!$&'()*+,;=:%]*$/;
const REG_NAME = /^[A-Za-z0-9\-._~!$&'()*+,;=%]*$/;
const PORT = /^[0-9]*$/;
const IP_FUTURE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;
const PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const QUERY_OR_FRAGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;
const LOOPBACK_V4 = /^127(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
const ASCII_WHITESPACE = /[\t\n\v\f\r ]+/;

function parseAuthority(authority: string): Pick<UriParts, 'userinfo' | 'host' | 'port'> | null {
  const at = authority.indexOf('@');
  if (at !== authority.lastIndexOf('@')) return null;
  const userinfo = at < 0 ? undefined : authority.slice(0, at);
  if (userinfo !== undefined && !USERINFO.test(userinfo)) return null;
  const hostPort = authority.slice(at + 1);
  let host: string;
  let rest: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return null;
    const literal = hostPort.slice(1, close);
    if (!isIPv6(literal) && !IP_FUTURE.test(literal)) return null;
    host = hostPort.slice(0, close + 1);
    rest = hostPort.slice(close + 1);
  } else {
    const colon = hostPort.indexOf(':');
    host = colon < 0 ? hostPort : hostPort.slice(0, colon);
    rest = colon < 0 ? '' : hostPort.slice(colon);
    if (!REG_NAME.test(host)) return null;
  }
  if (rest !== '' && !rest.startsWith(':')) return null;
  const port = rest === '' ? undefined : rest.slice(1);
  if (port !== undefined && !PORT.test(port)) return null;
  return { userinfo, host, port };
}

function parseUri(text: string): UriParts | null {
  if (!URI_CHARACTERS.test(text)) return null;
  const match = URI_COMPONENTS.exec(text);
  if (match === null) return null;
  const [, scheme, authority, path = '', query, fragment] = match;
  if (scheme !== undefined && !SCHEME.test(scheme)) return null;
  if (!PATH.test(path)) return null;
  if (query !== undefined && !QUERY_OR_FRAGMENT.test(query)) return null;
  if (fragment !== undefined && !QUERY_OR_FRAGMENT.test(fragment)) return null;
  const server = authority === undefined ? { userinfo: undefined, host: undefined, port: undefined } : parseAuthority(authority);
  if (server === null) return null;
  return { scheme, authority, ...server, path, query, fragment };
}

// A scheme followed by a path that does not start with "/" (e.g. "myapp:callback", "localhost:3000").
function isOpaque(parts: UriParts): boolean {
  return parts.scheme !== undefined && parts.authority === undefined && parts.path !== '' && !parts.path.startsWith('/');
}

function lacksRequiredHost(parts: UriParts): boolean {
  return parts.scheme !== undefined && HTTP_SCHEMES.has(parts.scheme.toLowerCase()) && !parts.host;
}

export function isLoopbackHost(host: string | undefined): boolean {
  return host === '[::1]' || (host !== undefined && LOOPBACK_V4.test(host));
}

/** Whether a redirect URI is plain http to a host that is not a loopback address (RFC 8252 section 7.3's exception). */
export function isPlainHttpOffLoopback(uri: string): boolean {
  const parts = parseUri(uri);
  return parts !== null && isPlainHttpOffLoopbackParts(parts);
}

const isPlainHttpOffLoopbackParts = (parts: UriParts): boolean => parts.scheme?.toLowerCase() === 'http' && !isLoopbackHost(parts.host);

export function isOutOfBand(uri: string): boolean {
  return uri === OOB_URI || uri === OOB_AUTO_URI;
}

/** The URIs of the registered text, each once (matching is exact: a copy means nothing, as at RFC 7591 registration). */
export function splitRegisteredUris(text: string): string[] {
  return [...new Set(text.split(ASCII_WHITESPACE).filter((uri) => uri !== ''))];
}

// Reference 7.1, in a fixed order; several messages can apply to one URI. A scheme-relative URI
// ("//host/cb"), which Doorkeeper lets through, is reported as lacking a scheme, and so is "host:port" or
// "myapp:callback", whose "scheme" is no scheme at all: those are not also called forbidden. A script scheme
// ("javascript:alert(1)") is a scheme, forbidden, and not also said to be missing. The host rules of
// redirect-uri-host.ts (issue 29) apply to new URIs: `stored` (a URI the application already has) skips them, so
// that editing an application does not refuse what it was registered with (authorize never checks them).
export function registrationErrors(uri: string, options: { forceSsl: boolean; stored?: boolean }): string[] {
  if (isOutOfBand(uri)) return [];
  const parts = parseUri(uri);
  if (parts === null) return [INVALID];
  const scheme = parts.scheme?.toLowerCase();
  const noScheme =
    scheme === undefined ? parts.authority !== undefined : !SCRIPT_SCHEMES.has(scheme) && (isOpaque(parts) || scheme === 'localhost');
  const errors: string[] = [];
  if (lacksRequiredHost(parts)) errors.push(INVALID);
  if (scheme !== undefined && (SCRIPT_SCHEMES.has(scheme) || (!noScheme && !isAllowedRedirectScheme(scheme)))) errors.push(FORBIDDEN);
  // RFC 6749 section 3.1.2: the redirection endpoint URI MUST NOT include a fragment component.
  if (parts.fragment !== undefined) errors.push(FRAGMENT);
  if (noScheme) errors.push(NO_SCHEME);
  // RFC 6749 section 3.1.2: the redirection endpoint URI MUST be an absolute URI.
  if (scheme === undefined && parts.authority === undefined) errors.push(RELATIVE);
  // RFC 6749 section 3.1.2.1 wants TLS; RFC 8252 section 7.3 permits http on loopback IPs (not "localhost").
  if (options.forceSsl && isPlainHttpOffLoopbackParts(parts)) errors.push(NOT_SSL);
  if (!options.stored && scheme !== undefined && !noScheme && parts.host) errors.push(...hostProblems(scheme, parts.userinfo, parts.host));
  if (!options.stored) errors.push(...pathAndPortProblems(parts));
  return errors;
}

const UNOPENABLE_PORT = 'Redirect URI port must be a number from 1 to 65535.';
const DOT_SEGMENTS = 'Redirect URI path must not hold . or .. segments: browsers resolve them, so the URI would not go where it reads.';

// What browsers would not open as written (a self-registration audit): a port outside 1-65535, and dot segments,
// which WHATWG URL parsing resolves (https://rp.example/cb/../x goes to /x) while the consent screen shows the host.
function pathAndPortProblems(parts: UriParts): string[] {
  const problems: string[] = [];
  if (parts.port !== undefined && parts.port !== '' && !isOpenablePort(parts.port)) problems.push(UNOPENABLE_PORT);
  if (parts.path.split('/').some(isDotSegment)) problems.push(DOT_SEGMENTS);
  return problems;
}

// WHATWG URL reads %2e as a dot in a segment: "%2e%2e" is ".." to a browser.
const isDotSegment = (segment: string) => ['.', '..'].includes(segment.toLowerCase().replaceAll('%2e', '.'));
const isOpenablePort = (port: string) => /^[0-9]{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535;

// Reference 7.2's validity rules for a requested URI.
function isValidRedirectTarget(parts: UriParts): boolean {
  if (parts.scheme === undefined || parts.scheme.toLowerCase() === 'localhost') return false;
  return parts.fragment === undefined && !isOpaque(parts) && !lacksRequiredHost(parts);
}

function withoutPort(parts: UriParts): string {
  const userinfo = parts.userinfo === undefined ? '' : `${parts.userinfo}@`;
  const query = parts.query === undefined ? '' : `?${parts.query}`;
  const fragment = parts.fragment === undefined ? '' : `#${parts.fragment}`;
  return `${parts.scheme ?? ''}://${userinfo}${parts.host ?? ''}${parts.path}${query}${fragment}`;
}

// RFC 8252 section 7.3: native apps listen on an ephemeral loopback port, so for literal loopback IPs the
// port may differ; every other character must still be identical.
function sameExceptLoopbackPort(requested: UriParts, registered: string): boolean {
  if (requested.scheme === undefined || !HTTP_SCHEMES.has(requested.scheme.toLowerCase())) return false;
  if (!isLoopbackHost(requested.host)) return false;
  // Another port, but one a native app can listen on: a browser refuses 65536 (and no app listens on 0).
  if (requested.port !== undefined && !isOpenablePort(requested.port)) return false;
  const other = parseUri(registered);
  if (other === null || !isLoopbackHost(other.host)) return false;
  return withoutPort(requested) === withoutPort(other);
}

// RFC 9700 section 4.1.3 and RFC 6749 section 3.1.2.3: exact string comparison against each registered URI,
// no normalisation of case, default ports, trailing slashes, query or percent-encoding. The loopback port
// exception is RFC 8252's, for native apps, which are public clients: a confidential client gets none, so a
// page cannot send its codes or tokens to whatever else listens on another loopback port.
export function matchesRegisteredUri(
  requested: string,
  registered: readonly string[],
  { anyLoopbackPort }: { anyLoopbackPort: boolean },
): boolean {
  if (typeof requested !== 'string' || !Array.isArray(registered)) return false;
  if (isOutOfBand(requested)) return registered.includes(requested);
  const parts = parseUri(requested);
  if (parts === null || !isValidRedirectTarget(parts)) return false;
  return registered.some(
    (candidate) =>
      typeof candidate === 'string' && (candidate === requested || (anyLoopbackPort && sameExceptLoopbackPort(parts, candidate))),
  );
}

function firstParameterName(part: string): string {
  for (const [name] of new URLSearchParams(part)) return name;
  return '';
}

// Reference 4.5 with Doorkeeper 6's fix: response parameters replace same-named ones already in the URI, so a
// registered "?state=x" never yields two states. Existing parameters are kept byte for byte, in order.
export function buildRedirectUrl(redirectUri: string, params: Record<string, string | undefined>, mode: 'query' | 'fragment'): string {
  const response = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' && value !== '') response.append(name, value);
  }
  const encoded = response.toString();
  const hash = redirectUri.indexOf('#');
  const beforeFragment = hash < 0 ? redirectUri : redirectUri.slice(0, hash);
  const fragment = hash < 0 ? undefined : redirectUri.slice(hash + 1);
  const question = beforeFragment.indexOf('?');
  const base = question < 0 ? beforeFragment : beforeFragment.slice(0, question);
  const query = question < 0 ? undefined : beforeFragment.slice(question + 1);

  if (mode === 'fragment') {
    const keptQuery = query === undefined ? '' : `?${query}`;
    return `${base}${keptQuery}${encoded === '' ? '' : `#${encoded}`}`;
  }
  const replaced = new Set(response.keys());
  const kept = (query ?? '').split('&').filter((part) => part !== '' && !replaced.has(firstParameterName(part)));
  const merged = encoded === '' ? kept : [...kept, encoded];
  const keptFragment = fragment === undefined ? '' : `#${fragment}`;
  return `${base}${merged.length === 0 ? '' : `?${merged.join('&')}`}${keptFragment}`;
}
