import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard, type GuardToken } from '@oauth-service/guard';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { bearer, localIntrospection } from './guard-helpers.js';

// Seed helpers service_token, valid_service_token? and current_resource_owner, through HTTP in local mode.
describe('guard (local mode): request helpers', () => {
  let server: TestServer;
  let client: TestClient;
  let user: { id: number; username: string };
  let lookups: () => number;
  let resolutions = 0;
  const validity = new Map<string, boolean>();

  beforeAll(async () => {
    server = await buildTestServer();
    client = await createClient(server.deps);
    user = await createUser(server.deps);
    const local = localIntrospection(server.deps);
    lookups = local.calls;
    const resolveResourceOwner = async (token: GuardToken) => {
      resolutions += 1;
      return token.resourceOwnerId === null ? null : server.deps.stores.users.findById(Number(token.resourceOwnerId));
    };
    await server.app.register(async (api) => {
      await api.register(serviceGuard, { introspect: local.introspect, resolveResourceOwner, now: () => server.clock.now.getTime() });
      // validServiceToken after the response was decided, for both passing and refused requests.
      api.addHook('onResponse', async (request) => {
        validity.set(request.headers['x-probe'] as string, await request.validServiceToken());
      });
      api.get('/api/optional', async (request) => ({ token: await request.serviceToken(), valid: await request.validServiceToken() }));
      api.get('/api/write', { preHandler: api.serviceAuthorize('write') }, async () => 'ok');
      api.get('/api/me', { preHandler: api.serviceAuthorize() }, async (request, reply) => {
        const first = await request.currentResourceOwner<{ username: string }>();
        const second = await request.currentResourceOwner<{ username: string }>();
        const locals = (reply as unknown as { locals: { currentResourceOwner?: { username: string } } }).locals;
        return { first: first?.username ?? null, same: first === second, inViews: locals.currentResourceOwner?.username ?? null };
      });
      api.get('/api/owner', async (request) => ({ owner: await request.currentResourceOwner() }));
    });
  });
  afterAll(() => server.close());

  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers });
  const userToken = async (scopes = ['read']) =>
    (await issueToken(server.deps, { application: client.application, resourceOwnerId: user.id, scopes, grantType: 'authorization_code' }))
      .accessToken;

  it('serviceToken() returns the valid token of the request', async () => {
    const response = await get('/api/optional', bearer(await userToken(['read', 'write'])));
    expect(response.json()).toMatchObject({
      token: { active: true, scopes: ['read', 'write'], clientId: client.uid, resourceOwnerId: user.id },
      valid: true,
    });
    expect(response.json().token.expiresAt).toBeGreaterThan(server.clock.now.getTime() / 1000);
  });

  it('serviceToken() is null when no token, an unknown or a revoked token is sent', async () => {
    const revoked = await issueToken(server.deps, { application: client.application, scopes: ['read'] });
    await server.deps.stores.accessTokens.revoke(revoked.record.id, server.deps.now());
    for (const headers of [{}, bearer('unknown'), bearer(revoked.accessToken)]) {
      expect((await get('/api/optional', headers)).json()).toEqual({ token: null, valid: false });
    }
  });

  it('validServiceToken() is true only when the token satisfies the scopes given to serviceAuthorize', async () => {
    await get('/api/write', { ...bearer(await userToken(['read'])), 'x-probe': 'read-token' });
    await get('/api/write', { ...bearer(await userToken(['write'])), 'x-probe': 'write-token' });
    await get('/api/optional', { ...bearer(await userToken(['read'])), 'x-probe': 'unguarded' });
    await get('/api/write', { 'x-probe': 'no-token' });
    expect(Object.fromEntries(validity)).toMatchObject({ 'read-token': false, 'write-token': true, unguarded: true, 'no-token': false });
  });

  it('currentResourceOwner() resolves the owner once per request and exposes it to views', async () => {
    const before = { resolutions, lookups: lookups() };
    const response = await get('/api/me', bearer(await userToken()));
    expect(response.json()).toEqual({ first: user.username, same: true, inViews: user.username });
    expect(resolutions).toBe(before.resolutions + 1);
    expect(lookups()).toBe(before.lookups + 1);
  });

  it('currentResourceOwner() is null without a valid token, and the resolver is not called', async () => {
    const before = resolutions;
    expect((await get('/api/owner')).json()).toEqual({ owner: null });
    expect((await get('/api/owner', bearer('unknown'))).json()).toEqual({ owner: null });
    expect(resolutions).toBe(before);
  });

  it('currentResourceOwner() is what the resolver says for a client_credentials token (no owner)', async () => {
    const clientToken = (await issueToken(server.deps, { application: client.application, scopes: ['read'] })).accessToken;
    expect((await get('/api/me', bearer(clientToken))).json()).toEqual({ first: null, same: true, inViews: null });
  });
});
