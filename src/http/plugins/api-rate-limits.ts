import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config/types.js';
import { extractClientCredentials } from '../../oauth/client-credentials.js';
import { InvalidClient, OAuthError } from '../../oauth/errors.js';
import { API_GROUP_PATHS } from '../api-content-type.js';
import { FailureLimiter } from '../hooks/failure-limiter.js';

/** 429 for a client or address locked out after failed authentication, or over its request budget. */
export class TooManyRequests extends OAuthError {
  constructor(readonly retryAfterSeconds: number, reason: string) {
    // RFC 6749 section 4.1.2.1's temporarily_unavailable is the standard code closest to "back off".
    super('temporarily_unavailable', 429, `${reason} Retry after ${retryAfterSeconds} seconds.`);
  }
}

const isApiRequest = (request: FastifyRequest) => API_GROUP_PATHS.has(request.routeOptions.url ?? '');

/** The client id a request names (Basic or body), without authenticating it; null when none or malformed. */
function namedClient(request: FastifyRequest): string | null {
  try {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
    return extractClientCredentials({ authorization: request.headers.authorization, body })?.clientId ?? null;
  } catch {
    return null;
  }
}

/**
 * SPEC 5 rateLimit on token, revoke and introspect: failed client authentication backs off and then locks
 * out per client and per IP; successful calls are not limited unless perClientPerMinute is set (a resource
 * server may introspect thousands of times a second). Counters live in this process; see README "Rate limits"
 * for a shared store across instances.
 */
export const apiRateLimitsPlugin = fp<{ config: Readonly<Config> }>(
  async (app, { config }) => {
    const limits = config.rateLimit;
    const failures = new FailureLimiter(limits);
    const keysOf = (request: FastifyRequest) => {
      const client = namedClient(request);
      return client ? [`ip:${request.ip}`, `client:${client}`] : [`ip:${request.ip}`];
    };

    app.addHook('preHandler', async (request) => {
      if (!limits.enabled || !isApiRequest(request)) return;
      const wait = failures.retryAfter(keysOf(request), new Date());
      if (wait > 0) throw new TooManyRequests(wait, 'Too many failed client authentications.');
    });
    app.addHook('onError', async (request, _reply, error) => {
      if (limits.enabled && error instanceof InvalidClient && isApiRequest(request)) failures.recordFailure(keysOf(request), new Date());
    });

    const perMinute = limits.perClientPerMinute;
    if (!limits.enabled || perMinute === null) return;
    // Registered before the routes, so this onRoute hook marks the API group for @fastify/rate-limit.
    app.addHook('onRoute', (route) => {
      if (API_GROUP_PATHS.has(route.url)) route.config = { ...(route.config as object), rateLimit: { max: perMinute, timeWindow: 60_000 } };
    });
    await app.register(rateLimit, {
      global: false,
      keyGenerator: (request) => {
        const client = namedClient(request);
        return client ? `client:${client}` : `ip:${request.ip}`;
      },
      errorResponseBuilder: (_request, context) => new TooManyRequests(Math.ceil(context.ttl / 1000), 'Request limit reached.'),
    });
  },
  { name: 'api-rate-limits' },
);
