import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard, type GuardError, type LocalGuardOptions } from '@oauth-service/guard';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { bearer, localIntrospection } from './guard-helpers.js';

// Seed service_unauthorized_render_options / service_forbidden_render_options; reference P6-P9.
describe('guard (local mode): customized 401 and 403 responses', () => {
  let server: TestServer;
  let client: TestClient;
  const seen: Array<{ code: string; reason: string | null; scopes: readonly string[]; url: string }> = [];

  beforeAll(async () => {
    server = await buildTestServer();
    client = await createClient(server.deps);
    const { introspect } = localIntrospection(server.deps);
    const protect = (prefix: string, options: Partial<LocalGuardOptions>) =>
      server.app.register(
        async (api: FastifyInstance) => {
          await api.register(serviceGuard, { introspect, ...options });
          api.get(`/write`, { preHandler: api.serviceAuthorize('write') }, async () => 'ok');
          api.get(`/owner`, { preHandler: api.serviceAuthorize() }, async (request) => ({ owner: await request.currentResourceOwner() }));
        },
        { prefix },
      );
    const record = (error: GuardError, url: string) => seen.push({ code: error.code, reason: error.reason, scopes: error.scopes, url });
    await protect('/json', {
      serviceUnauthorizedRenderOptions: ({ error, request }) => (
        record(error, request.url),
        { body: { error_message: error.description } }
      ),
      serviceForbiddenRenderOptions: ({ error }) => ({ body: { error_message: error.description, needed: error.scopes } }),
    });
    await protect('/plain', {
      serviceUnauthorizedRenderOptions: () => ({ body: 'Unauthorized' }),
      serviceForbiddenRenderOptions: async () => ({ body: 'Forbidden' }),
    });
    await protect('/hidden', {
      serviceUnauthorizedRenderOptions: () => ({ body: 'Unauthorized' }),
      serviceForbiddenRenderOptions: () => ({ respondNotFoundWhenForbidden: true, body: { error: 'not_found' } }),
    });
    await protect('/default', { serviceUnauthorizedRenderOptions: () => null, serviceForbiddenRenderOptions: () => undefined });
  });
  afterAll(() => server.close());

  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers });
  const readToken = async () => (await issueToken(server.deps, { application: client.application, scopes: ['read'] })).accessToken;

  it('renders the 401 hook JSON with the Bearer challenge (P6); the hook gets the error and the request', async () => {
    const response = await get('/json/write', bearer('invalid'));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error_message: 'The access token is invalid' });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(seen.at(-1)).toEqual({ code: 'invalid_token', reason: 'unknown', scopes: [], url: '/json/write' });
    await get('/json/write');
    expect(seen.at(-1)?.reason).toBe('missing');
  });

  it('renders the 403 hook JSON with the insufficient_scope challenge (P8)', async () => {
    const response = await get('/json/write', bearer(await readToken()));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error_message: 'Access to this resource requires scope "write".', needed: ['write'] });
    expect(response.headers['www-authenticate']).toContain('error="insufficient_scope"');
  });

  it('renders plain-text bodies as text/plain (P7, P8)', async () => {
    const unauthorized = await get('/plain/write', bearer('invalid'));
    expect([unauthorized.statusCode, unauthorized.body, unauthorized.headers['content-type']]).toEqual([
      401,
      'Unauthorized',
      'text/plain; charset=utf-8',
    ]);
    expect(unauthorized.headers['www-authenticate']).toMatch(/^Bearer /);
    const forbidden = await get('/plain/write', bearer(await readToken()));
    expect([forbidden.statusCode, forbidden.body]).toEqual([403, 'Forbidden']);
    expect(forbidden.headers['www-authenticate']).toContain('error="insufficient_scope"');
  });

  it('turns a 403 into a 404 without a challenge with respondNotFoundWhenForbidden, leaving 401 alone (P9)', async () => {
    const forbidden = await get('/hidden/write', bearer(await readToken()));
    expect(forbidden.statusCode).toBe(404);
    expect(forbidden.json()).toEqual({ error: 'not_found' });
    expect(forbidden.headers['www-authenticate']).toBeUndefined();
    expect((await get('/hidden/write', bearer('invalid'))).statusCode).toBe(401);
  });

  it('keeps the default JSON bodies when the hooks return nothing', async () => {
    expect((await get('/default/write', bearer('invalid'))).json()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token is invalid',
    });
    expect((await get('/default/write', bearer(await readToken()))).json()).toEqual({
      error: 'insufficient_scope',
      error_description: 'Access to this resource requires scope "write".',
    });
  });

  it('currentResourceOwner() is null when no resolver is configured', async () => {
    expect((await get('/default/owner', bearer(await readToken()))).json()).toEqual({ owner: null });
  });
});
