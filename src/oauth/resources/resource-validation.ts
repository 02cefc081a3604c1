import { isLoopbackHost } from '../authorization/redirect-uri.js';
import { accessTokenFormatError } from '../tokens/access-token-format.js';
import type { OAuthDeps } from '../deps.js';
import { isWellFormedScopeParam, parseScopes } from '../scopes.js';
import { hasControlCharacter } from '../control-characters.js';
import { MAX_LIFETIME, MIN_LIFETIME } from './resource-lifetime.js';

// The rules a registered resource (RFC 8707) must pass, as ordered tables of named rules (STYLE 7): per field, the
// first failing rule decides its message. The admin form, the JSON API and the CLI all come through here.

/** The fields as typed (form, JSON API, CLI): strings, '' for "none" where a field is optional. */
export interface ResourceFields {
  uri: string;
  name: string;
  /** Space-separated. */
  scopes: string;
  /** opaque or jwt; '' means opaque. */
  tokenFormat: string;
  /** Seconds; '' means the server's accessTokenExpiresIn. */
  accessTokenLifetime: string;
  /** The client_id (uid) of the API's own application; '' for none. */
  serverClientId: string;
  /**
   * RFC 9396: the authorization_details types it serves, as the JSON of authorization-details-schemas.ts
   * ({"type": {"schema": {...}, "consent": "text"}}); '' for none, absent: unchanged (or none, for a new resource).
   * Checked in resources.ts (Ajv loads asynchronously).
   */
  authorizationDetailsTypes?: string;
}

export type ResourceField =
  'uri' | 'name' | 'scopes' | 'token_format' | 'access_token_lifetime' | 'server_client_id' | 'authorization_details_types';
export type ResourceFieldErrors = Partial<Record<ResourceField, string[]>>;

export const MAX_URI_LENGTH = 2000;
export { MAX_LIFETIME, MIN_LIFETIME } from './resource-lifetime.js';

type Config = OAuthDeps['config'];
export interface ResourceRule {
  name: string;
  check: (value: string, config: Config) => boolean;
  error: (value: string, config: Config) => string;
}

// RFC 3986: its characters (section 2) and its components (appendix B). Parsed by hand, not with WHATWG URL,
// which would normalise the URI: a resource indicator is compared exactly (RFC 8707 section 2).
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const URI_COMPONENTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
// Never a resource: schemes that run script if the URI were ever followed.
const SCRIPT_SCHEMES = new Set(['javascript', 'data', 'vbscript']);

function uriParts(uri: string) {
  const [, scheme, authority, , , fragment] = URI_COMPONENTS.exec(uri) ?? [];
  const host = authority?.replace(/^[^@]*@/, '').replace(/:[0-9]*$/, '');
  return { scheme: scheme?.toLowerCase(), host, fragment };
}
const isHttp = (uri: string) => ['http', 'https'].includes(uriParts(uri).scheme ?? '');

export const URI_RULES: ResourceRule[] = [
  { name: 'present', check: (uri) => uri !== '', error: () => "URI can't be blank" },
  {
    name: 'not too long',
    check: (uri) => uri.length <= MAX_URI_LENGTH,
    error: () => `URI is too long (maximum is ${MAX_URI_LENGTH} characters)`,
  },
  { name: 'URI characters', check: (uri) => URI_CHARACTERS.test(uri), error: () => 'URI must be a valid URI (RFC 3986).' },
  // RFC 8707 section 2: the resource parameter's value MUST be an absolute URI.
  {
    name: 'absolute',
    check: (uri) => SCHEME.test(URI_COMPONENTS.exec(uri)?.[1] ?? ''),
    error: () => 'URI must be an absolute URI with a scheme, such as https://api.example.com.',
  },
  {
    name: 'no script scheme',
    check: (uri) => !SCRIPT_SCHEMES.has(uriParts(uri).scheme ?? ''),
    error: () => 'URI is forbidden by the server.',
  },
  // RFC 8707 section 2: it MUST NOT include a fragment component.
  { name: 'no fragment', check: (uri) => uriParts(uri).fragment === undefined, error: () => 'URI cannot contain a fragment.' },
  {
    name: 'http has a host',
    check: (uri) => !isHttp(uri) || Boolean(uriParts(uri).host),
    error: () => 'URI must have a host, such as https://api.example.com.',
  },
  // The same TLS rule as redirect URIs (RFC 6749 section 3.1.2.1), with the same switch.
  {
    name: 'https unless loopback',
    // RFC 8252 section 7.3, as for redirect URIs (the same rule): literal loopback IPs, not "localhost".
    check: (uri, config) => !config.forceSslInRedirectUri || uriParts(uri).scheme !== 'http' || isLoopbackHost(uriParts(uri).host),
    error: () => 'URI must be an HTTPS URI (http only on a loopback IP such as 127.0.0.1, or with forceSslInRedirectUri off).',
  },
];

export const NAME_RULES: ResourceRule[] = [
  { name: 'not too long', check: (name) => name.length <= 255, error: () => 'Name is too long (maximum is 255 characters)' },
  // PostgreSQL text cannot hold a NUL: refused here, not by a failing INSERT.
  { name: 'no NUL', check: (name) => !name.includes('\u0000'), error: () => 'Name is invalid' },
  // A name is a line of the admin pages and the CLI's tables: a bell or an escape sequence is no part of one.
  {
    name: 'no control characters',
    check: (name) => name.includes('\u0000') || !hasControlCharacter(name),
    error: () => 'Name must not contain control characters',
  },
];

const serverScopes = (config: Config) => [...config.defaultScopes, ...config.optionalScopes];
const quoted = (values: string[]) => values.map((value) => JSON.stringify(value.slice(0, 40))).join(', ');

export const SCOPE_RULES: ResourceRule[] = [
  {
    name: 'present',
    check: (scopes) => parseScopes(scopes).length > 0,
    error: () => "Scopes can't be blank: a resource accepts at least one scope",
  },
  // RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
  {
    name: 'scope tokens',
    check: (scopes) => parseScopes(scopes).every((scope) => isWellFormedScopeParam(scope)),
    error: (scopes) =>
      `Scopes has an invalid scope ${quoted(parseScopes(scopes).filter((scope) => !isWellFormedScopeParam(scope)))}: a scope is printable ASCII without spaces, quotes or backslashes`,
  },
  // A resource may accept only scopes this server grants, whether or not enforceConfiguredScopes is on: a scope
  // it could never be given would be a typo waiting to be an invalid_target.
  {
    name: 'server scopes',
    check: (scopes, config) => parseScopes(scopes).every((scope) => serverScopes(config).includes(scope)),
    error: (scopes, config) => {
      const unknown = parseScopes(scopes).filter((scope) => !serverScopes(config).includes(scope));
      const noun = unknown.length === 1 ? 'is not a scope' : 'are not scopes';
      return `Scopes has ${quoted(unknown)}, which ${noun} of this server (defaultScopes and optionalScopes: ${serverScopes(config).join(' ')})`;
    },
  },
];

export const TOKEN_FORMAT_RULES: ResourceRule[] = [
  {
    name: 'opaque or jwt, with signing keys',
    check: (format, config) =>
      accessTokenFormatError(format || 'opaque', { openidEnabled: config.openid.enabled, label: 'Token format' }) === null,
    error: (format, config) => accessTokenFormatError(format, { openidEnabled: config.openid.enabled, label: 'Token format' }) ?? '',
  },
];

export const LIFETIME_RULES: ResourceRule[] = [
  {
    name: 'seconds in range, or empty',
    check: (lifetime) =>
      lifetime === '' || (/^[0-9]{1,6}$/.test(lifetime) && Number(lifetime) >= MIN_LIFETIME && Number(lifetime) <= MAX_LIFETIME),
    error: () =>
      `Access token lifetime must be a whole number of seconds from ${MIN_LIFETIME} to ${MAX_LIFETIME} (leave it empty for the server default)`,
  },
];

/** Whether the application exists is checked against the store (resources.ts); this is its form. */
export const SERVER_CLIENT_ID_RULES: ResourceRule[] = [
  {
    name: 'a client_id',
    check: (uid) => uid === '' || /^[\x21-\x7E]{1,255}$/.test(uid),
    error: () => 'Server client ID must be the client_id (UID) of a registered application',
  },
];

// The declaration of authorization_details types is JSON with schemas, checked in resources.ts.
const TABLES: Array<[ResourceField, Exclude<keyof ResourceFields, 'authorizationDetailsTypes'>, ResourceRule[]]> = [
  ['uri', 'uri', URI_RULES],
  ['name', 'name', NAME_RULES],
  ['scopes', 'scopes', SCOPE_RULES],
  ['token_format', 'tokenFormat', TOKEN_FORMAT_RULES],
  ['access_token_lifetime', 'accessTokenLifetime', LIFETIME_RULES],
  ['server_client_id', 'serverClientId', SERVER_CLIENT_ID_RULES],
];

/** The first failing rule of a table, or null. */
export function firstFailure(rules: ResourceRule[], value: string, config: Config): ResourceRule | null {
  return rules.find((rule) => !rule.check(value, config)) ?? null;
}

/** Every field's problem (one message per field: its first failing rule), in form order. */
export function resourceFieldErrors(fields: ResourceFields, config: Config): ResourceFieldErrors {
  const errors: ResourceFieldErrors = {};
  for (const [field, key, rules] of TABLES) {
    const value = normalised(key, fields[key]);
    const failed = firstFailure(rules, value, config);
    if (failed) errors[field] = [failed.error(value, config)];
  }
  return errors;
}

/** Surrounding spaces are typing, not meaning (the URI is otherwise compared exactly, so it is not changed further). */
export function normalised(key: keyof ResourceFields, value: string): string {
  return key === 'scopes' ? value : value.trim();
}
