import type { AutocannonOptions, AutocannonRequest } from 'autocannon';
import { bulkToken, type Seed } from './seed.js';

/** One endpoint under load: how to drive it with autocannon and what a correct answer looks like. */
export interface Scenario {
  name: string;
  /** Autocannon options for one run (called per run: chains take fresh tokens each time). */
  load(): Pick<AutocannonOptions, 'method' | 'path' | 'headers' | 'body' | 'requests' | 'setupClient'>;
  /** One request for the correctness check before measuring (both servers must answer alike). */
  probe(): AutocannonRequest;
  /** What every measured response must be; anything else is counted as an error. */
  expectStatus: number;
  /** The statuses of the other steps of a scenario of several requests (each step checks its own answers). */
  alsoExpected?: readonly number[];
  /** Checks the probe's JSON beyond its status (e.g. active true). */
  expectBody?: (body: Record<string, unknown>) => boolean;
}

const FORM = 'application/x-www-form-urlencoded';
const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** RFC 6749 section 2.3.1: id and secret form-encoded, then Basic. */
export function basicAuth(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

// Autocannon takes the path from `url` unless it comes in `requests`.
const fixed = (request: AutocannonRequest, expectBody?: Scenario['expectBody']): Omit<Scenario, 'name'> => ({
  load: () => ({ requests: [request] }),
  probe: () => request,
  expectStatus: 200,
  ...(expectBody && { expectBody }),
});

/**
 * Refresh tokens are single use. Each connection follows its own rotation chain like a real client: it
 * starts from a seeded token and presents, next time, the refresh token of the previous answer. A failed
 * answer breaks the chain; the connection takes a fresh seed (the failure is counted either way).
 */
function refreshScenario(seed: Seed, basic: string): Omit<Scenario, 'name'> {
  const pool = [...seed.refreshTokens];
  const take = () => pool.shift() ?? 'refresh-tokens-exhausted';
  const request = (token: string): AutocannonRequest => ({
    method: 'POST',
    path: '/oauth/token',
    headers: { 'content-type': FORM, authorization: basic },
    body: form({ grant_type: 'refresh_token', refresh_token: token }),
  });
  return {
    load: () => ({
      setupClient(client) {
        let current = take();
        client.setRequests([
          {
            ...request(current),
            setupRequest: (next) => ({ ...next, body: form({ grant_type: 'refresh_token', refresh_token: current }) }),
            onResponse: (status, body) => {
              current = status === 200 ? (JSON.parse(body) as { refresh_token: string }).refresh_token : take();
            },
          },
        ]);
      },
    }),
    probe: () => request(take()),
    expectStatus: 200,
    expectBody: (body) => typeof body.refresh_token === 'string',
  };
}

/** Introspection of a random token of bulkToken(1..count), so lookups spread over the whole index. */
export function randomIntrospection(seed: Seed, count: number): AutocannonRequest {
  const basic = basicAuth(seed.clientId, seed.clientSecret);
  return {
    method: 'POST',
    path: '/oauth/introspect',
    headers: { 'content-type': FORM, authorization: basic },
    body: form({ token: bulkToken(1) }),
    setupRequest: (request) => ({ ...request, body: form({ token: bulkToken(1 + Math.floor(Math.random() * count)) }) }),
  };
}

export function endpointScenarios(seed: Seed): Scenario[] {
  const basic = basicAuth(seed.clientId, seed.clientSecret);
  const introspect = (authorization: string, token: string): AutocannonRequest => ({
    method: 'POST',
    path: '/oauth/introspect',
    headers: { 'content-type': FORM, authorization },
    body: form({ token }),
  });
  const active = (body: Record<string, unknown>) => body.active === true;
  return [
    { name: 'introspect basic active', ...fixed(introspect(basic, seed.activeToken), active) },
    { name: 'introspect basic unknown', ...fixed(introspect(basic, seed.unknownToken), (body) => body.active === false) },
    { name: 'introspect bearer', ...fixed(introspect(`Bearer ${seed.bearerToken}`, seed.activeToken), active) },
    {
      name: 'token client_credentials',
      ...fixed(
        {
          method: 'POST',
          path: '/oauth/token',
          headers: { 'content-type': FORM, authorization: basic },
          body: form({ grant_type: 'client_credentials' }),
        },
        (body) => typeof body.access_token === 'string',
      ),
    },
    { name: 'token refresh', ...refreshScenario(seed, basic) },
    {
      name: 'token info',
      ...fixed(
        { method: 'GET', path: '/oauth/token/info', headers: { authorization: `Bearer ${seed.activeToken}` } },
        (body) => 'application' in body,
      ),
    },
  ];
}

/** Issue 21's two hot paths: introspection of a live token with Basic, and client_credentials issue. */
export const hotPathScenarios = (seed: Seed): Scenario[] =>
  endpointScenarios(seed).filter((s) => s.name === 'introspect basic active' || s.name === 'token client_credentials');

/** The two hot paths as the single requests of bench:ha and bench:pgbouncer, under their names there. */
export function hotPathRequests(seed: Seed): Array<{ name: string; request: AutocannonRequest }> {
  const [introspection, clientCredentials] = hotPathScenarios(seed);
  return [
    { name: 'introspection', request: introspection!.probe() },
    { name: 'token (client_credentials)', request: clientCredentials!.probe() },
  ];
}

/** The RSS run: each connection cycles through the hot endpoints, introspecting random stored tokens. */
export function soakScenario(seed: Seed, storedTokens: number): Scenario {
  const [, , bearer, clientCredentials, , info] = endpointScenarios(seed);
  const requests = [randomIntrospection(seed, storedTokens), clientCredentials!.probe(), bearer!.probe(), info!.probe()];
  return { name: 'soak (mixed)', load: () => ({ requests }), probe: () => requests[0]!, expectStatus: 200 };
}
