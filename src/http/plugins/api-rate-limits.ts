import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config/types.js';
import { extractClientCredentials } from '../../oauth/clients/client-credentials.js';
import { TooManyRequests } from '../../oauth/errors.js';
import { limitedAddress } from '../../oauth/limits/limited-address.js';
import { API_GROUP_PATHS } from '../api-content-type.js';

// UserInfo (OpenID Connect Core 5.3) answers a bearer token, not a client: like token info, its budget is
// per address. It is not in API_GROUP_PATHS, whose POSTs must be forms (a UserInfo POST may have no body).
// Dynamic client registration (RFC 7591 / 7592) names no authenticated client: its budget is per address.
const RATE_LIMITED_PATHS = new Set([...API_GROUP_PATHS, '/oauth/userinfo', '/oauth/register', '/oauth/register/:client_id']);

/** The client id a request names (Basic or body), without authenticating it; null when none or malformed. */
function namedClient(request: FastifyRequest): string | null {
  try {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
    return extractClientCredentials({ authorization: request.headers.authorization, body, address: request.ip })?.clientId ?? null;
  } catch {
    return null;
  }
}

/**
 * SPEC 5 rateLimit.perClientPerMinute: an optional budget of requests per minute (off by default: a resource server
 * may introspect thousands of times a second). A request that names a client is counted once the client has
 * authenticated (oauth/limits/client-request-budget.ts), so that a wrong secret spends no client's budget; failed
 * authentication is limited where credentials are checked (oauth/limits/attempt-limits.ts), per failing pair. Here,
 * per address: the requests that name no client (UserInfo, token info, introspection by a Bearer token,
 * registration management).
 * Issue 19 registration.perAddressPerMinute: registrations (POST /oauth/register) per client address (IPv6 by
 * its /64), on by default and counted apart from perClientPerMinute. Both count in this instance's memory.
 */
export const apiRateLimitsPlugin = fp<{ config: Readonly<Config> }>(
  async (app, { config }) => {
    const limits = config.rateLimit;
    const perMinute = limits.perClientPerMinute;
    const registrationsPerMinute = config.registration.policy === 'off' ? 0 : config.registration.perAddressPerMinute;
    if (!limits.enabled || (perMinute === null && registrationsPerMinute === 0)) return;
    // Registered before the routes, so this onRoute hook marks the API group for @fastify/rate-limit.
    app.addHook('onRoute', (route) => {
      if (perMinute !== null && RATE_LIMITED_PATHS.has(route.url))
        route.config = { ...(route.config as object), rateLimit: { max: perMinute, timeWindow: 60_000 } };
    });
    await app.register(rateLimit, {
      global: false,
      keyGenerator: (request) => {
        const client = namedClient(request);
        // An address as every limit counts it: an IPv6 one by its /64 (one host has them all).
        return client ? `client:${client}` : `ip:${limitedAddress(request.ip)}`;
      },
      // Counted by the client's own budget once it has authenticated.
      allowList: (_request, key) => key.startsWith('client:'),
      errorResponseBuilder: (_request, context) => new TooManyRequests(Math.ceil(context.ttl / 1000), 'Request limit reached.'),
    });
    if (registrationsPerMinute === 0) return;
    // A limiter of its own (its own counts), so a registration is counted here whatever perClientPerMinute does.
    const registrations = app.createRateLimit({
      max: registrationsPerMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => limitedAddress(request.ip),
    });
    async function limitRegistrationsPerAddress(request: FastifyRequest): Promise<void> {
      const outcome = await registrations(request);
      if (!outcome.isAllowed && outcome.isExceeded)
        throw new TooManyRequests(outcome.ttlInSeconds, 'Too many registrations from this address.');
    }
    // On the registration route only, so no other request pays for the hook (issue 21).
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (route.url !== '/oauth/register' || !methods.includes('POST')) return;
      const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
      route.onRequest = [limitRegistrationsPerAddress, ...own];
    });
  },
  { name: 'api-rate-limits' },
);
