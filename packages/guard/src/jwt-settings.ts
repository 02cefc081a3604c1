import { METHODS } from 'node:http';
import type { JwtAlgorithm, JwtGuardOptions } from './types.js';
import { LOOPBACK, withoutCredentials } from './remote-settings.js';
import { nonNegative, timeoutMs } from './number-options.js';

const ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];

export interface JwtSettings {
  issuer: string;
  jwksUri: string | undefined;
  algorithms: JwtAlgorithm[];
  clockToleranceSeconds: number;
  jwksCooldownSeconds: number;
  jwksMaxAgeSeconds: number;
  timeoutMs: number;
  introspect: 'never' | 'always' | ReadonlySet<string>;
  now: () => number;
}

/** jwt mode's options with their defaults, checked at registration so a typo fails the boot, not a request. */
export function jwtSettings(options: JwtGuardOptions, now: () => number): JwtSettings {
  httpsUrl('issuer', options.issuer);
  // Compared as a string with the metadata's issuer, which has no trailing "/" on this service (its baseUrl without one).
  if (options.issuer.endsWith('/'))
    throw new TypeError(
      `serviceGuard: issuer must be the issuer identifier exactly as the server's metadata gives it, without a trailing slash, got ${JSON.stringify(options.issuer)}`,
    );
  if (options.jwksUri !== undefined) httpsUrl('jwksUri', options.jwksUri);
  // Used by the `introspect` routes only, but a URL fetch refuses is a mistake whether or not they are listed yet.
  if (typeof options.introspectionUrl === 'string' && URL.canParse(options.introspectionUrl))
    withoutCredentials('introspectionUrl', new URL(options.introspectionUrl), 'give clientId and clientSecret');
  const algorithms = [...(options.algorithms ?? ALGORITHMS)];
  // RFC 8725 section 3.1: an allowlist; symmetric algorithms would let anyone holding the public key sign.
  if (algorithms.length === 0 || algorithms.some((alg) => !ALGORITHMS.includes(alg))) {
    throw new TypeError(`serviceGuard: algorithms must be a non-empty subset of ${ALGORITHMS.join(', ')}`);
  }
  return {
    issuer: options.issuer,
    jwksUri: options.jwksUri,
    algorithms,
    clockToleranceSeconds: nonNegative('clockToleranceSeconds', options.clockToleranceSeconds ?? 5),
    jwksCooldownSeconds: nonNegative('jwksCooldownSeconds', options.jwksCooldownSeconds ?? 30),
    jwksMaxAgeSeconds: nonNegative('jwksMaxAgeSeconds', options.jwksMaxAgeSeconds ?? 600),
    timeoutMs: timeoutMs(options.timeoutMs ?? 2000),
    introspect: introspectRule(options.introspect ?? 'never'),
    now,
  };
}

function introspectRule(value: unknown): JwtSettings['introspect'] {
  if (value === 'never' || value === 'always') return value;
  const routes = Array.isArray(value) ? value.map(routeKey) : null;
  if (routes && routes.every((route) => route !== null)) return new Set(routes);
  throw new TypeError(`serviceGuard: introspect must be 'never', 'always' or a list of routes, got ${JSON.stringify(value)}`);
}

// A route as `request.routeOptions.url` declares it ('/notes/:id'), optionally after its method ('DELETE /notes/:id').
// Anything else could never match a request, so it fails the boot instead of silently never introspecting.
const ROUTE = /^(?:([A-Za-z]+)\s+)?(\/\S*)$/;

function routeKey(route: unknown): string | null {
  const match = typeof route === 'string' ? ROUTE.exec(route.trim()) : null;
  if (!match) return null;
  if (match[1] === undefined) return match[2]!;
  const method = match[1].toUpperCase();
  // A method no request can have ('DELET') would never match either.
  return METHODS.includes(method) ? `${method} ${match[2]!}` : null;
}

function httpsUrl(name: string, value: unknown): void {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname)))) {
    throw new TypeError(`serviceGuard: ${name} must be an absolute https URL (http for loopback only), got ${JSON.stringify(value)}`);
  }
  withoutCredentials(name, url);
}
