import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard } from '@oauth-service/guard';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { bearer, localIntrospection } from './guard-helpers.js';

// Seed "service_authorize!" and reference 21.15 through HTTP, the guard in local mode inside the service.
describe('guard (local mode): serviceAuthorize on protected routes', () => {
  let server: TestServer;
  let client: TestClient;
  let lookups: () => number;
  let guarded: FastifyInstance;
  const token = async (scopes: string[], extra: { expiresIn?: number | null } = {}) =>
    (await issueToken(server.deps, { application: client.application, scopes, ...extra })).accessToken;

  beforeAll(async () => {
    server = await buildTestServer();
    client = await createClient(server.deps);
    const local = localIntrospection(server.deps);
    lookups = local.calls;
    await server.app.register(async (api) => {
      guarded = api;
      await api.register(serviceGuard, { introspect: local.introspect, realm: 'test-api', now: () => server.clock.now.getTime() });
      api.get('/api/any', { preHandler: api.serviceAuthorize() }, async () => 'index');
      api.get('/api/read-or-write', { preHandler: api.serviceAuthorize('read', 'write') }, async () => 'show');
      api.get('/api/read-and-write', { preHandler: [api.serviceAuthorize('read'), api.serviceAuthorize('write')] }, async (request) => ({
        token: (await request.serviceToken())?.scopes,
        valid: await request.validServiceToken(),
      }));
    });
  });
  afterAll(() => server.close());

  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers });

  it('accepts a valid bearer token on a route needing any valid token', async () => {
    const response = await get('/api/any', bearer(await token(['read'])));
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('index');
  });

  it('accepts a token that never expires', async () => {
    expect((await get('/api/any', bearer(await token([], { expiresIn: null })))).statusCode).toBe(200);
  });

  it('answers 401 with a realm-only challenge and a JSON body when no token is sent (RFC 6750 section 3.1)', async () => {
    const before = lookups();
    const response = await get('/api/any');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="test-api"');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
    expect(lookups()).toBe(before);
  });

  it('treats another scheme (Authorization: MAC) as no token and does not look it up (reference P2)', async () => {
    const before = lookups();
    const response = await get('/api/any', { authorization: `MAC ${await token(['read'])}` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="test-api"');
    expect(lookups()).toBe(before);
  });

  it('does not accept a token in the query string (tokens in URLs leak to logs)', async () => {
    const response = await get(`/api/any?access_token=${await token(['read'])}`);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="test-api"');
  });

  it('answers 401 invalid_token with error and description in the challenge for an unknown token', async () => {
    const response = await get('/api/any', bearer('invalid'));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="test-api", error="invalid_token", error_description="The access token is invalid"',
    );
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
  });

  it('says why a revoked or an expired token is refused (reference 12.2)', async () => {
    const revoked = await issueToken(server.deps, { application: client.application, scopes: ['read'] });
    await server.deps.stores.accessTokens.revoke(revoked.record.id, server.deps.now());
    const response = await get('/api/any', bearer(revoked.accessToken));
    expect(response.statusCode).toBe(401);
    expect(response.json().error_description).toBe('The access token was revoked');
    expect(response.headers['www-authenticate']).toContain('error_description="The access token was revoked"');

    const expired = await get('/api/any', bearer(await token(['read'], { expiresIn: -100 })));
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual({ error: 'invalid_token', error_description: 'The access token expired' });
  });

  it('accepts a token holding any one of the scopes of one serviceAuthorize call (OR)', async () => {
    for (const scopes of [['read'], ['write'], ['read', 'write'], ['admin', 'write']]) {
      expect((await get('/api/read-or-write', bearer(await token(scopes)))).statusCode, scopes.join(' ')).toBe(200);
    }
  });

  it('answers 403 insufficient_scope naming the scopes when the token holds none of them', async () => {
    for (const scopes of [['admin'], []]) {
      const response = await get('/api/read-or-write', bearer(await token(scopes)));
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        error: 'insufficient_scope',
        error_description: 'Access to this resource requires scope "read write".',
      });
      expect(response.headers['www-authenticate']).toBe(
        'Bearer realm="test-api", error="insufficient_scope", error_description="Access to this resource requires scope _read write_.", scope="read write"',
      );
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  it('requires every serviceAuthorize call of a route to pass (AND across calls)', async () => {
    const readOnly = await get('/api/read-and-write', bearer(await token(['read'])));
    expect(readOnly.statusCode).toBe(403);
    expect(readOnly.json().error_description).toBe('Access to this resource requires scope "write".');
    expect((await get('/api/read-and-write', bearer(await token(['write'])))).statusCode).toBe(403);
    const both = await get('/api/read-and-write', bearer(await token(['read', 'write'])));
    expect(both.statusCode).toBe(200);
    expect(both.json()).toEqual({ token: ['read', 'write'], valid: true });
  });

  it('looks the token up once per request, however many preHandlers and helpers ask', async () => {
    const value = await token(['read', 'write']);
    const before = lookups();
    expect((await get('/api/read-and-write', bearer(value))).statusCode).toBe(200);
    expect(lookups()).toBe(before + 1);
    // Reference P3: the next request with the same header is looked up again (nothing is kept across requests).
    expect((await get('/api/read-and-write', bearer(value))).statusCode).toBe(200);
    expect(lookups()).toBe(before + 2);
  });

  it('refuses a malformed bearer credential as an invalid token without looking it up', async () => {
    const before = lookups();
    const response = await get('/api/any', { authorization: 'Bearer two words' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(lookups()).toBe(before);
  });

  it('fails at route definition when one argument holds several scopes (one scope per argument)', () => {
    expect(() => guarded.serviceAuthorize('read write')).toThrow(/one scope per argument/);
  });
});
