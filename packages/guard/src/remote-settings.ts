import type { RemoteIntrospectionOptions } from './types.js';
import { nonNegative, timeoutMs } from './number-options.js';

export interface RemoteSettings {
  url: string;
  /** The ready-made Basic credentials header. */
  authorization: string;
  cacheTtlSeconds: number;
  negativeCacheTtlSeconds: number;
  cacheMaxEntries: number;
  timeoutMs: number;
  acceptMissingTokenType: boolean;
  now: () => number;
}

/** Remote options with their defaults, checked once at registration so a typo fails the boot, not a request. */
export function remoteSettings(options: RemoteIntrospectionOptions): RemoteSettings {
  const url = parseUrl(options.introspectionUrl);
  requireText('clientId', options.clientId);
  requireText('clientSecret', options.clientSecret);
  return {
    url: url.href,
    authorization: basicCredentials(options.clientId, options.clientSecret),
    cacheTtlSeconds: nonNegative('cacheTtlSeconds', options.cacheTtlSeconds ?? 30),
    negativeCacheTtlSeconds: nonNegative('negativeCacheTtlSeconds', options.negativeCacheTtlSeconds ?? 5),
    cacheMaxEntries: Math.floor(nonNegative('cacheMaxEntries', options.cacheMaxEntries ?? 10_000)),
    timeoutMs: timeoutMs(options.timeoutMs ?? 2000),
    acceptMissingTokenType: options.acceptMissingTokenType ?? false,
    now: options.now ?? Date.now,
  };
}

/**
 * RFC 6749 section 2.3.1 and appendix B: the client id and secret are each form-urlencoded, then joined with
 * ":" and base64-encoded. URLSearchParams is the WHATWG application/x-www-form-urlencoded serializer.
 */
export function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams([['', value]]).toString().slice(1);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`, 'utf8').toString('base64')}`;
}

function parseUrl(value: unknown): URL {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new TypeError(`serviceGuard: introspectionUrl must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  return withoutCredentials('introspectionUrl', url, 'give clientId and clientSecret');
}

function requireText(name: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') throw new TypeError(`serviceGuard: ${name} must be a non-empty string`);
}

/** Hosts for which plain http is tolerated (RFC 8252 section 8.3 loopback). */
export const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** RFC 7662 section 4: introspection must use TLS; plain http is tolerated for loopback only, with a warning otherwise. */
export function transportWarning(introspectionUrl: string): string | null {
  const url = new URL(introspectionUrl);
  if (url.protocol === 'https:' || LOOPBACK.has(url.hostname)) return null;
  return `serviceGuard: ${url.origin} is plain http; RFC 7662 section 4 requires TLS for introspection (tokens and client credentials travel in clear)`;
}

/**
 * A URL a fetch can use: fetch refuses one that carries a user name or password. `instead` says what to give in their
 * place, when there is such an option.
 */
export function withoutCredentials(name: string, url: URL, instead = ''): URL {
  if (url.username !== '' || url.password !== '')
    throw new TypeError(`serviceGuard: ${name} must not carry a user name or password${instead && ` (${instead})`}`);
  return url;
}
