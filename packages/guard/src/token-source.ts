import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { AudienceRule } from './audience.js';
import { jwtSettings, type JwtSettings } from './jwt-settings.js';
import { createJwtVerifier } from './jwt-verification.js';
import { createRemoteIntrospector } from './remote-introspection.js';
import type { ResourceSettings } from './resource-metadata.js';
import type { EvaluationRules } from './token-evaluation.js';
import type { GuardToken, JwtGuardOptions, ServiceGuardOptions } from './types.js';

/** Looks a token up for a request: the mode's introspect function, or jwt mode's verification. */
export type TokenSource = (token: string, request: FastifyRequest) => Promise<GuardToken | null>;

/** Where the guard's tokens come from in each mode, and the rules every valid one must then meet. */
export function tokenSource(
  options: ServiceGuardOptions,
  resource: ResourceSettings | null,
  now: () => number,
  log: FastifyBaseLogger,
): { source: TokenSource; rules: EvaluationRules } {
  const audience: AudienceRule | null = resource && {
    resource: resource.resource,
    acceptTokensWithoutAudience: resource.acceptTokensWithoutAudience,
    ...(options.mode === 'jwt' && { noAudience: [options.issuer] }),
  };
  if (options.mode === 'jwt') {
    const settings = jwtSettings(options, now);
    return { source: jwtSource(options, settings, log), rules: { audience, clockToleranceSeconds: settings.clockToleranceSeconds } };
  }
  if (options.mode === 'remote') {
    const introspect = createRemoteIntrospector({ ...options, now });
    return { source: (token) => introspect(token), rules: { audience } };
  }
  if (typeof options.introspect !== 'function') {
    throw new TypeError('serviceGuard: local mode needs an introspect(token) function; use mode "remote" to ask an introspection endpoint');
  }
  const introspect = options.introspect;
  return { source: (token) => introspect(token), rules: { audience } };
}

// A verified JWT is also introspected on the routes that must see a revocation at once: a JWT carries no revocation
// state, and introspection (RFC 7662) is where this service reports a revoked one as inactive.
function jwtSource(options: JwtGuardOptions, settings: JwtSettings, log: FastifyBaseLogger): TokenSource {
  const verify = createJwtVerifier(settings, (error) =>
    log.warn({ err: error }, 'serviceGuard: refreshing the JWKS failed; the cached keys stay in use'),
  );
  if (settings.introspect === 'never') return (token) => verify(token);
  if (options.introspectionUrl === undefined || options.clientId === undefined || options.clientSecret === undefined) {
    throw new TypeError('serviceGuard: introspect in jwt mode needs introspectionUrl, clientId and clientSecret');
  }
  const introspect = createRemoteIntrospector({
    introspectionUrl: options.introspectionUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    ...options,
    cacheTtlSeconds: options.cacheTtlSeconds ?? 0,
    now: settings.now,
  });
  const routes = settings.introspect;
  // Fastify answers HEAD with the GET route's handler (exposeHeadRoutes): a GET listed covers its HEAD too.
  const methodsOf = (request: FastifyRequest) => (request.method === 'HEAD' ? ['HEAD', 'GET'] : [request.method]);
  const mustIntrospect = (request: FastifyRequest) => {
    if (routes === 'always') return true;
    const url = request.routeOptions.url ?? '';
    return routes.has(url) || methodsOf(request).some((method) => routes.has(`${method} ${url}`));
  };
  return async function verifyThenIntrospect(token, request) {
    const verified = await verify(token);
    if (verified === null || !verified.active || !mustIntrospect(request)) return verified;
    // The signature and claims hold; an inactive answer now means the server revoked it.
    const answer = await introspect(token);
    return answer === null ? { ...verified, active: false, reason: 'revoked' } : verified;
  };
}
