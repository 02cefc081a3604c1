import type { Config } from '../../../config/types.js';
import { grantTypeProblem, NO_EXTRAS, operatorAllowance, scopeProblem } from '../client-holdings.js';
import { isInternalHost, isLoopbackRedirectHost } from '../registration/client-registration-uris.js';
import { ClientMetadataDocumentRefused, type FetchedDocument } from './client-metadata-document-fetch.js';
import { drawsNothing, formatCharacterIn } from '../../format-characters.js';
import { registrationErrors } from '../../authorization/redirect-uri.js';
import { isWellFormedScopeParam, parseScopes } from '../../scopes.js';
import type { ApplicationInput } from '../../store.js';
import { clientAuthenticationProblem, jwksUriProblem } from '../client-authentication-setting.js';
import { jwksProblem, jwksText } from '../client-assertion/client-jwks.js';
import { UNSTORABLE_TEXT, unstorableText } from '../../storable-text.js';

// draft-ietf-oauth-client-id-metadata-document: a client_id that is an https URL names a JSON document of RFC 7591
// client metadata, which the authorization server fetches. These are the rules for the URL, for the document, and
// for how long the fetched document is used.

/** Used for this long when the answer says nothing about caching, so that one authorization does not fetch thrice. */
export const DEFAULT_CACHE_SECONDS = 60;

/** Longer client_id URLs are not fetched (nor remembered as refused, which keeps that memory small). */
export const MAX_CLIENT_ID_URL_LENGTH = 2048;

/**
 * Why `clientId` is not a Client Identifier URL (section 3), or null when it is one. The URL is compared as a
 * string and never normalised (section 3: the server MUST NOT normalise it), so a URL that WHATWG parsing would
 * rewrite (dot segments, upper-case host, default port) is refused rather than fetched under another name.
 */
export function clientIdUrlProblem(clientId: string, allowHttp: boolean): string | null {
  if (clientId.length > MAX_CLIENT_ID_URL_LENGTH) return `is longer than ${MAX_CLIENT_ID_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return 'is not an https URL';
  if (url.href !== clientId) return 'is not in normalised form (dot segments, case, default port or escaping)';
  if (url.username !== '' || url.password !== '') return 'holds a user name or password';
  if (url.hash !== '' || clientId.includes('#')) return 'holds a fragment';
  if (url.pathname === '/' || url.pathname === '') return 'has no path';
  return null;
}

/** Looks like it was meant as a Client ID Metadata Document URL (so a refusal is worth a log line). */
export function looksLikeClientIdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

export type DocumentClient = ApplicationInput & { metadataExpiresAt: Date };

const SHARED_SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
const PUBLIC_GRANTS = new Set(['authorization_code', 'refresh_token']);

/**
 * The application row a fetched document stands for: a public client (section 4.1: no client_secret, and no
 * shared-secret authentication method), or one that proves itself with its key (private_key_jwt with jwks or
 * jwks_uri, issue 34), with the document's redirect URIs. The first problem refuses the document.
 */
export function clientFromDocument(clientId: string, fetched: FetchedDocument, config: Readonly<Config>, now: Date): DocumentClient {
  const document = fetched.document;
  const refuse = (reason: string): never => {
    throw new ClientMetadataDocumentRefused(reason);
  };
  // Section 4.1: the document's client_id MUST equal the URL it was fetched from, by simple string comparison.
  if (document.client_id !== clientId) refuse('its client_id is not the URL it was fetched from');
  if ('client_secret' in document || 'client_secret_expires_at' in document) refuse('it holds a client_secret');
  if (unstorableText(document) !== null) refuse(`its text ${UNSTORABLE_TEXT}`);
  const method = document.token_endpoint_auth_method ?? 'none';
  if (typeof method !== 'string') refuse('token_endpoint_auth_method is not a string');
  if (SHARED_SECRET_METHODS.has(method as string)) refuse(`token_endpoint_auth_method ${String(method)} needs a shared secret`);
  if (method !== 'none' && method !== 'private_key_jwt') refuse('token_endpoint_auth_method is not none or private_key_jwt');
  const keys = method === 'private_key_jwt' ? documentKeys(document, config, refuse) : null;

  const redirectUris = stringList(document.redirect_uris, 'redirect_uris') ?? refuse('redirect_uris is missing');
  if (redirectUris.length === 0) refuse('redirect_uris is empty');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) refuse(`redirect_uris: ${problem}`);
  }
  const grantTypes = stringList(document.grant_types, 'grant_types') ?? ['authorization_code'];
  // Issue 34: a client that proves itself with its key may also use client_credentials.
  const unsupported = grantTypes.find((grant) => !PUBLIC_GRANTS.has(grant) && !(keys !== null && grant === 'client_credentials'));
  if (unsupported !== undefined) {
    const listed = keys === null ? 'authorization_code and refresh_token' : 'authorization_code, refresh_token and client_credentials';
    refuse(`grant_types: ${unsupported} is not one a metadata document may list (${listed})`);
  }
  // Issue 29: the same bounds as a registration at /oauth/register (RFC 7591 section 3.2.2), no token to widen them.
  const allowance = operatorAllowance(config, NO_EXTRAS);
  for (const grant of grantTypes) {
    const problem = grantTypeProblem(grant, allowance);
    if (problem !== null) refuse(problem);
  }
  const scopes = registeredScopes(document.scope);
  const problem = scopeProblem(scopes, config, allowance);
  if (problem !== null) refuse(problem);
  const responseTypes = stringList(document.response_types, 'response_types') ?? ['code'];
  if (responseTypes.some((type) => type !== 'code')) refuse('response_types holds a type other than code');

  const applicationType = document.application_type ?? null;
  if (applicationType !== null && applicationType !== 'web' && applicationType !== 'native')
    refuse('application_type is not web or native');

  return {
    name: clientName(document.client_name) ?? new URL(clientId).host,
    secret: null,
    confidential: keys !== null,
    redirectUris,
    scopes,
    registeredBy: 'metadata_document',
    grantTypes,
    tokenEndpointAuthMethod: keys === null ? 'none' : 'private_key_jwt',
    jwks: keys?.jwks ?? null,
    jwksUri: keys?.jwksUri ?? null,
    applicationType: applicationType as 'web' | 'native' | null,
    clientUri: displayUri(document.client_uri),
    logoUri: displayUri(document.logo_uri),
    policyUri: displayUri(document.policy_uri),
    tosUri: displayUri(document.tos_uri),
    contacts: (Array.isArray(document.contacts) ? document.contacts : [])
      .filter((contact): contact is string => shortString(contact) !== null)
      .slice(0, 10),
    softwareId: shortString(document.software_id),
    softwareVersion: shortString(document.software_version),
    metadataExpiresAt: new Date(
      now.getTime() + cacheSeconds(fetched, now, config.registration.clientIdMetadataDocuments.maxCacheSeconds) * 1000,
    ),
  };
}

/**
 * Issue 34: the keys of a private_key_jwt document, jwks or jwks_uri (one of them), under the rules of the admin's
 * settings (client-authentication-setting.ts). No secret is ever involved: the client stays without one.
 */
function documentKeys(
  document: Record<string, unknown>,
  config: Readonly<Config>,
  refuse: (reason: string) => never,
): { jwks: string | null; jwksUri: string | null } {
  const { jwks, jwks_uri: jwksUri } = document;
  if (jwksUri !== undefined && typeof jwksUri !== 'string') refuse('jwks_uri is not a string');
  const jwksProblemFound = jwks === undefined ? null : jwksProblem(jwks);
  if (jwksProblemFound !== null) refuse(jwksProblemFound);
  const uriProblem =
    typeof jwksUri === 'string' ? jwksUriProblem(jwksUri, config.registration.clientIdMetadataDocuments.allowPrivateAddresses) : null;
  if (uriProblem !== null) refuse(uriProblem);
  const keys = { jwks: jwks === undefined ? null : jwksText(jwks), jwksUri: (jwksUri as string | undefined) ?? null };
  const problem = clientAuthenticationProblem({ method: 'private_key_jwt', confidential: true, ...keys }, config);
  if (problem !== null) refuse(problem.message);
  return keys;
}

/**
 * How long the fetched document may be used (RFC 9111): Cache-Control max-age (less Age), else Expires against
 * Date; no-store and no-cache mean it is fetched again whenever it is next needed; s-maxage (shared caches) is
 * ignored; nothing said: DEFAULT_CACHE_SECONDS. Never longer than maxCacheSeconds.
 */
export function cacheSeconds(
  fetched: Pick<FetchedDocument, 'cacheControl' | 'expires' | 'date' | 'age'>,
  now: Date,
  maxCacheSeconds: number,
): number {
  const directives = new Map<string, string>();
  for (const part of (fetched.cacheControl ?? '').split(',')) {
    const [name, value = ''] = part
      .trim()
      .split('=', 2)
      .map((item) => item.trim());
    if (name) directives.set(name.toLowerCase(), value.replace(/^"(.*)"$/, '$1'));
  }
  const age = Math.max(0, Number.parseInt(fetched.age ?? '0', 10) || 0);
  let seconds: number;
  if (directives.has('no-store') || directives.has('no-cache')) seconds = 0;
  else if (directives.has('max-age')) {
    const maxAge = /^\d+$/.test(directives.get('max-age')!) ? Number(directives.get('max-age')) : 0;
    seconds = maxAge - age;
  } else if (fetched.expires !== null) {
    // RFC 9111 section 5.3: an invalid Expires (such as "0") means already expired.
    const expires = Date.parse(fetched.expires);
    const date = fetched.date === null ? Number.NaN : Date.parse(fetched.date);
    seconds = Number.isNaN(expires) ? 0 : Math.floor((expires - (Number.isNaN(date) ? now.getTime() : date)) / 1000);
  } else seconds = DEFAULT_CACHE_SECONDS;
  return Math.min(Math.max(0, seconds), maxCacheSeconds);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function stringList(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new ClientMetadataDocumentRefused(`${name} is not an array of strings`);
  return value as string[];
}

function clientName(value: unknown): string | null {
  if (typeof value !== 'string' || drawsNothing(value) || CONTROL.test(value)) return null;
  // Issue 29 item 10: a format character makes the name read as another on the consent screen; such a document is
  // refused, not given the host's name, because the character is the spoofing itself.
  const format = formatCharacterIn(value);
  if (format !== null) throw new ClientMetadataDocumentRefused(`client_name holds an invisible formatting character (${format})`);
  return value.trim().slice(0, 255);
}

function shortString(value: unknown): string | null {
  return typeof value === 'string' && value.length <= 255 && !CONTROL.test(value) && formatCharacterIn(value) === null ? value : null;
}

// RFC 7591 section 2 display URIs are shown to the user: only https links to public hosts are kept.
function displayUri(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null;
  // The host rule of a self-registered client's display URIs, so that a document shows no link a registration refuses.
  return isInternalHost(url.hostname) ? null : url.href;
}

// Section 4.1 and RFC 7591 section 2: the scopes the client will ask for, each one this server offers and the
// operator allows self-registered clients (issue 29: refused, never silently narrowed). None: the client holds the
// default scopes the operator allows (client-holdings.ts).
function registeredScopes(value: unknown): string[] {
  if (value === undefined || value === '') return [];
  if (typeof value !== 'string' || value.length > 1000 || !isWellFormedScopeParam(value))
    throw new ClientMetadataDocumentRefused('scope is not scope tokens separated by spaces');
  return parseScopes(value);
}

// RFC 8252 and RFC 9700 section 2.1: https, loopback http (any port), or a reverse-domain private-use scheme. The
// registration rules let only those schemes through (redirect-uri.ts); http goes to a loopback host only, the one rule
// of /oauth/register (client-registration-uris.ts). Said without the URI: the error page shows the reason.
function redirectUriProblem(uri: string): string | null {
  if (registrationErrors(uri, { forceSsl: false }).length > 0 || !URL.canParse(uri)) return 'a redirect URI is not acceptable';
  const url = new URL(uri);
  return url.protocol === 'http:' && !isLoopbackRedirectHost(url.hostname) ? 'http is for loopback redirect URIs only' : null;
}
