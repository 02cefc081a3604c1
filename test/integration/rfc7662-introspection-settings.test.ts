import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccessTokenRecord, ApplicationRecord } from '../../src/oauth/store.js';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { activeAccessToken, basic, bearer, expectOAuthError, introspectRequest, TEXT } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// The settings that shape introspection (seed "Settings that shape introspection", SPEC 5 and 7): the
// declarative introspection.allow and introspection.response, and the two hooks that take precedence.

// One database for the file; each describe's server has its own config on it.
let base: TestServer;
beforeAll(async () => {
  base = await buildTestServer({ config: { optionalScopes: ['introspect'] } });
});
afterAll(() => base.close());

describe(`POST /oauth/introspect with config introspection.allow and introspection.response (SPEC 5) on ${backend}`, () => {
  let resourceServer: TestClient;
  let owner: TestClient;
  let clientsRule: TestServer;
  let scopeRule: TestServer;
  let withResponse: TestServer;
  let user: { id: number; username: string };

  beforeAll(async () => {
    resourceServer = await createClient(base.deps);
    owner = await createClient(base.deps);
    user = await createUser(base.deps);
    const shared = { testDatabase: base.testDatabase };
    clientsRule = await buildTestServer({
      ...shared,
      config: { introspection: { allow: [{ rule: 'clients', clientIds: [resourceServer.uid] }] } },
    });
    scopeRule = await buildTestServer({ ...shared, config: { introspection: { allow: [{ rule: 'bearerScope', scope: 'introspect' }] } } });
    withResponse = await buildTestServer({
      ...shared,
      config: {
        introspection: {
          response: { sub: 'resourceOwnerId', username: 'resourceOwner.username', aud: { value: 'api' }, active: { value: false } },
        },
      },
    });
  });
  afterAll(async () => {
    await Promise.all([clientsRule.close(), scopeRule.close(), withResponse.close()]);
  });

  it('rule "clients": a listed client may introspect any token', async () => {
    const issued = await issueToken(base.deps, { application: owner.application });
    const response = await introspectRequest(
      clientsRule.app,
      { token: issued.accessToken },
      basic(resourceServer.uid, resourceServer.secret!),
    );
    expect(response.json()).toMatchObject({ active: true, client_id: owner.uid });
  });

  it('rule "clients": the configured list replaces the default rules, so the owning client gets {"active":false}', async () => {
    const issued = await issueToken(base.deps, { application: owner.application });
    const response = await introspectRequest(clientsRule.app, { token: issued.accessToken }, basic(owner.uid, owner.secret!));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ active: false });
  });

  it('rule "bearerScope": a Bearer token holding the scope may introspect a token of another application', async () => {
    const requester = await issueToken(base.deps, { application: resourceServer.application, scopes: ['introspect'] });
    const issued = await issueToken(base.deps, { application: owner.application });
    const response = await introspectRequest(scopeRule.app, { token: issued.accessToken }, bearer(requester.accessToken));
    expect(response.json()).toMatchObject({ active: true, client_id: owner.uid });
  });

  it('rule "bearerScope": a Bearer token without the scope is rejected with 401 invalid_token', async () => {
    const requester = await issueToken(base.deps, { application: owner.application, scopes: ['read'] });
    const issued = await issueToken(base.deps, { application: owner.application });
    const response = await introspectRequest(scopeRule.app, { token: issued.accessToken }, bearer(requester.accessToken));
    expectOAuthError(response, 401, 'invalid_token', TEXT.tokenInvalid);
  });

  it('introspection.response fields are merged into an active response (RFC 7662 section 2.2 sub, username, aud)', async () => {
    const issued = await issueToken(base.deps, { application: owner.application, resourceOwnerId: user.id });
    const response = await introspectRequest(withResponse.app, { token: issued.accessToken }, basic(owner.uid, owner.secret!));
    expect(response.json()).toEqual(
      activeAccessToken(issued.record, { scope: 'read', client_id: owner.uid, sub: String(user.id), username: user.username, aud: 'api' }),
    );
  });

  it('introspection.response: owner fields are left out for a token without resource owner; active is never changed', async () => {
    const issued = await issueToken(base.deps, { application: owner.application, resourceOwnerId: null });
    const response = await introspectRequest(withResponse.app, { token: issued.accessToken }, basic(owner.uid, owner.secret!));
    expect(response.json()).toEqual(activeAccessToken(issued.record, { scope: 'read', client_id: owner.uid, aud: 'api' }));
  });

  it('introspection.response: a field named like a standard one is sent as configured, whatever its JSON type (seed: any JSON)', async () => {
    const typed = await buildTestServer({
      testDatabase: base.testDatabase,
      config: {
        introspection: { response: { exp: { value: 'never' }, scope: { value: ['read', 'write'] }, acr: { value: { level: 2 } } } },
      },
    });
    try {
      const issued = await issueToken(base.deps, { application: owner.application, resourceOwnerId: user.id });
      const response = await introspectRequest(typed.app, { token: issued.accessToken }, basic(owner.uid, owner.secret!));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ active: true, exp: 'never', scope: ['read', 'write'], acr: { level: 2 } });
    } finally {
      await typed.close();
    }
  });

  it('introspection.response adds nothing to an inactive response', async () => {
    const response = await introspectRequest(withResponse.app, { token: 'no-such-token' }, basic(owner.uid, owner.secret!));
    expect(response.json()).toEqual({ active: false });
  });

  it('introspection.enabled false: the route does not exist (404)', async () => {
    const disabled = await buildTestServer({ testDatabase: base.testDatabase, config: { introspection: { enabled: false } } });
    try {
      const issued = await issueToken(base.deps, { application: owner.application });
      const response = await introspectRequest(disabled.app, { token: issued.accessToken }, basic(owner.uid, owner.secret!));
      expect(response.statusCode).toBe(404);
      // Seed: `false` removes the route entirely, so the API group's 415 for a body that is no form is not given either.
      const json = await disabled.app.inject({
        method: 'POST',
        url: '/oauth/introspect',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expect({ status: json.statusCode, error: json.json().error }).toEqual({ status: 404, error: 'not_found' });
    } finally {
      await disabled.close();
    }
  });
});

describe(`POST /oauth/introspect with the allowTokenIntrospection and customIntrospectionResponse hooks (SPEC 7) on ${backend}`, () => {
  type AllowCall = [AccessTokenRecord | null, ApplicationRecord | null, AccessTokenRecord | null];
  type CustomCall = [AccessTokenRecord, { authorizedClient: ApplicationRecord | null; authorizedToken: AccessTokenRecord | null }];
  const allowCalls: AllowCall[] = [];
  const customCalls: CustomCall[] = [];
  let decision: unknown = true;
  let server: TestServer;
  let owner: TestClient;
  let other: TestClient;

  beforeAll(async () => {
    server = await buildTestServer({
      testDatabase: base.testDatabase,
      // Config rules and fields that the hooks must override.
      config: { introspection: { allow: [{ rule: 'tokenApplication' }], response: { configured: { value: 'from config' } } } },
      extensions: {
        allowTokenIntrospection: (token, authorizedClient, authorizedToken) => {
          allowCalls.push([token, authorizedClient, authorizedToken]);
          return decision;
        },
        customIntrospectionResponse: (token, context) => {
          customCalls.push([token, context]);
          return { sub: 'hooked', active: false, aud: ['api-1', 'api-2'] };
        },
      },
    });
    owner = await createClient(server.deps);
    other = await createClient(server.deps);
  });
  afterAll(() => server.close());
  beforeEach(() => {
    allowCalls.length = 0;
    customCalls.length = 0;
    decision = true;
  });

  it('Basic: the hook receives (token, authorized client, null) and its true lets another client see the token', async () => {
    const issued = await issueToken(server.deps, { application: owner.application });
    const response = await introspectRequest(server.app, { token: issued.accessToken }, basic(other.uid, other.secret!));
    expect(response.json()).toEqual(
      activeAccessToken(issued.record, { scope: 'read', client_id: owner.uid, sub: 'hooked', aud: ['api-1', 'api-2'] }),
    );
    expect(allowCalls).toHaveLength(1);
    const [token, client, authorizedToken] = allowCalls[0]!;
    expect({ token: token?.id, client: client?.id, authorizedToken }).toEqual({
      token: issued.record.id,
      client: other.application.id,
      authorizedToken: null,
    });
  });

  it('Basic: a false or null decision gives 200 {"active":false} and the response hook is not called', async () => {
    const issued = await issueToken(server.deps, { application: owner.application });
    for (const value of [false, null, undefined]) {
      decision = value;
      const response = await introspectRequest(server.app, { token: issued.accessToken }, basic(owner.uid, owner.secret!));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ active: false });
    }
    expect(allowCalls).toHaveLength(3);
    expect(customCalls).toHaveLength(0);
  });

  it('Basic: an unknown token is inactive without asking the hook (seed: the token is empty only under Bearer)', async () => {
    const response = await introspectRequest(server.app, { token: 'no-such-token' }, basic(owner.uid, owner.secret!));
    expect(response.json()).toEqual({ active: false });
    expect(allowCalls).toHaveLength(0);
  });

  it('Bearer: the hook receives (token, null, authorized token)', async () => {
    const requester = await issueToken(server.deps, { application: other.application });
    const issued = await issueToken(server.deps, { application: owner.application });
    const response = await introspectRequest(server.app, { token: issued.accessToken }, bearer(requester.accessToken));
    expect(response.json()).toMatchObject({ active: true, client_id: owner.uid, sub: 'hooked' });
    const [token, client, authorizedToken] = allowCalls[0]!;
    expect({ token: token?.id, client, authorizedToken: authorizedToken?.id }).toEqual({
      token: issued.record.id,
      client: null,
      authorizedToken: requester.record.id,
    });
  });

  it('Bearer: an unknown token is passed to the hook as null (seed); true gives {"active":false}', async () => {
    const requester = await issueToken(server.deps, { application: owner.application });
    const response = await introspectRequest(server.app, { token: 'no-such-token' }, bearer(requester.accessToken));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ active: false });
    expect(allowCalls.map(([token, client, authorizedToken]) => [token, client, authorizedToken?.id])).toEqual([
      [null, null, requester.record.id],
    ]);
  });

  it('Bearer: a false decision is 401 invalid_token (seed, Errors)', async () => {
    decision = false;
    const requester = await issueToken(server.deps, { application: owner.application });
    const issued = await issueToken(server.deps, { application: owner.application });
    const response = await introspectRequest(server.app, { token: issued.accessToken }, bearer(requester.accessToken));
    expectOAuthError(response, 401, 'invalid_token', TEXT.tokenInvalid);
  });

  it('customIntrospectionResponse receives (token, {authorizedClient, authorizedToken}) and never changes active', async () => {
    const issued = await issueToken(server.deps, { application: owner.application });
    const response = await introspectRequest(server.app, { token: issued.accessToken }, basic(owner.uid, owner.secret!));
    expect(response.json()).toMatchObject({ active: true, sub: 'hooked' });
    expect(response.json()).not.toHaveProperty('configured');
    expect(customCalls).toHaveLength(1);
    const [token, context] = customCalls[0]!;
    expect({ token: token.id, client: context.authorizedClient?.id, authorizedToken: context.authorizedToken }).toEqual({
      token: issued.record.id,
      client: owner.application.id,
      authorizedToken: null,
    });
  });

  it('customIntrospectionResponse is not called for an inactive token', async () => {
    const issued = await issueToken(server.deps, { application: owner.application });
    await server.deps.stores.accessTokens.revoke(issued.record.id, server.deps.now());
    const response = await introspectRequest(server.app, { token: issued.accessToken }, basic(owner.uid, owner.secret!));
    expect(response.json()).toEqual({ active: false });
    expect(customCalls).toHaveLength(0);
  });
});
