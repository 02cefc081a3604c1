import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard } from '@oauth-service/guard';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { bearer } from './guard-helpers.js';

// The guard in remote mode against a running service: POST /oauth/introspect with the API's client credentials.
describe('guard (remote mode): an API protected through POST /oauth/introspect', () => {
  let server: TestServer;
  let client: TestClient;
  let api: FastifyInstance;
  let introspections = 0;
  const guardClock = { ms: 0 };
  const advanceBoth = (seconds: number) => {
    server.clock.advance(seconds);
    guardClock.ms += seconds * 1000;
  };

  beforeAll(async () => {
    server = await buildTestServer();
    server.app.addHook('onRequest', async (request) => {
      if (request.url === '/oauth/introspect') introspections += 1;
    });
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    client = await createClient(server.deps);
    guardClock.ms = server.clock.now.getTime();
    api = Fastify();
    await api.register(serviceGuard, {
      mode: 'remote',
      introspectionUrl: `${address}/oauth/introspect`,
      clientId: client.uid,
      clientSecret: client.secret!,
      now: () => guardClock.ms,
    });
    api.get('/any', { preHandler: api.serviceAuthorize() }, async (request) => ({ token: await request.serviceToken() }));
    api.get('/write', { preHandler: api.serviceAuthorize('write') }, async () => ({ ok: true }));
  });
  afterAll(async () => {
    await api.close();
    await server.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => api.inject({ method: 'GET', url, headers });
  const issue = async (scopes: string[], extra: { expiresIn?: number; withRefreshToken?: boolean } = {}) =>
    issueToken(server.deps, { application: client.application, scopes, ...extra });

  it('accepts an active token and exposes what introspection said', async () => {
    const before = introspections;
    const response = await get('/any', bearer((await issue(['read', 'write'])).accessToken));
    expect(response.statusCode).toBe(200);
    expect(response.json().token).toMatchObject({
      active: true,
      scopes: ['read', 'write'],
      clientId: client.uid,
      claims: { token_type: 'Bearer' },
    });
    expect(introspections).toBe(before + 1);
  });

  it('answers 401 invalid_token for an unknown token', async () => {
    const response = await get('/any', bearer('unknown-token'));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="oauth-service", error="invalid_token", error_description="The access token is invalid"',
    );
  });

  it('a token too large for the service to read once form-encoded (6,000 "/", which the service refuses with 413) is 401, not 503', async () => {
    const response = await get('/any', bearer('/'.repeat(6000)));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
  });

  it('answers 403 insufficient_scope when the token lacks the scope, 200 when it holds it', async () => {
    expect((await get('/write', bearer((await issue(['read'])).accessToken))).statusCode).toBe(403);
    expect((await get('/write', bearer((await issue(['write'])).accessToken))).statusCode).toBe(200);
  });

  it('serves repeated requests for one token from the cache, without new introspection calls', async () => {
    const token = (await issue(['read'])).accessToken;
    const before = introspections;
    for (let i = 0; i < 5; i += 1) expect((await get('/any', bearer(token))).statusCode).toBe(200);
    expect(introspections).toBe(before + 1);
  });

  it('caches an inactive answer only for the negative TTL (5 s)', async () => {
    const before = introspections;
    expect((await get('/any', bearer('not-a-token'))).statusCode).toBe(401);
    expect((await get('/any', bearer('not-a-token'))).statusCode).toBe(401);
    expect(introspections).toBe(before + 1);
    advanceBoth(5);
    expect((await get('/any', bearer('not-a-token'))).statusCode).toBe(401);
    expect(introspections).toBe(before + 2);
  });

  it('never serves a cached token past its exp: the entry ends at exp and the service is asked again', async () => {
    const token = (await issue(['read'], { expiresIn: 2 })).accessToken;
    expect((await get('/any', bearer(token))).statusCode).toBe(200);
    const before = introspections;
    advanceBoth(3);
    const response = await get('/any', bearer(token));
    expect(response.statusCode).toBe(401);
    expect(introspections).toBe(before + 1);
  });

  it('refuses a token past its exp by its own clock even while the service still calls it active', async () => {
    const token = (await issue(['read'], { expiresIn: 2 })).accessToken;
    expect((await get('/any', bearer(token))).statusCode).toBe(200);
    guardClock.ms += 3000; // the service's clock lags behind
    const response = await get('/any', bearer(token));
    expect(response.statusCode).toBe(401);
    expect(response.json().error_description).toBe('The access token expired');
    server.clock.advance(3);
  });

  it('stops accepting a revoked token once the cache TTL (30 s) has passed', async () => {
    const issued = await issue(['read']);
    expect((await get('/any', bearer(issued.accessToken))).statusCode).toBe(200);
    await server.deps.stores.accessTokens.revoke(issued.record.id, server.deps.now());
    // The documented trade-off: within cacheTtlSeconds the cached answer still holds.
    expect((await get('/any', bearer(issued.accessToken))).statusCode).toBe(200);
    advanceBoth(30);
    expect((await get('/any', bearer(issued.accessToken))).statusCode).toBe(401);
  });

  // RFC 6749 section 1.5: refresh tokens are never sent to resource servers. The service reports an active
  // refresh token with token_type "refresh_token", and the guard accepts only "Bearer".
  it('refuses a refresh token presented as a bearer token', async () => {
    const { refreshToken } = await issue(['read'], { withRefreshToken: true });
    const response = await get('/any', bearer(refreshToken!));
    expect(response.statusCode).toBe(401);
  });

  it('answers 503 temporarily_unavailable, never 200, once the service is down', async () => {
    const cached = (await issue(['read'])).accessToken;
    expect((await get('/any', bearer(cached))).statusCode).toBe(200);
    const fresh = (await issue(['read'])).accessToken;
    await server.app.close();
    const response = await get('/any', bearer(fresh));
    expect(response.statusCode).toBe(503);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The authorization server could not be reached to verify the access token. Try again later.',
    });
    expect((await get('/any', bearer(fresh))).statusCode).toBe(503);
    // An answer cached before the outage still holds for its TTL, as documented.
    expect((await get('/any', bearer(cached))).statusCode).toBe(200);
  });
});
