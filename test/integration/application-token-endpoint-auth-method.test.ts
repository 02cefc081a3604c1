import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type TestClient } from '../helpers/factories.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import type { TokenEndpointAuthMethod } from '../../src/oauth/store.js';

// Issue 19, RFC 7591 section 2 token_endpoint_auth_method (decided, docs/behaviour.md 3.1): the two shared-secret
// methods are one credential (RFC 6749 section 2.3.1), so a client registered with either may use either, as
// Doorkeeper accepts both; "none" is a public client, which has no secret to send.

describe(`POST /oauth/token and the registered token_endpoint_auth_method (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  const registered = async (method: TokenEndpointAuthMethod, confidential = true): Promise<TestClient> => {
    const client = await createClient(server.deps, { confidential });
    await server.deps.stores.applicationAdmin.update(client.application.id, { tokenEndpointAuthMethod: method, registeredBy: 'dynamic' });
    return client;
  };
  const withBasic = (client: TestClient) =>
    tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!));
  const withPost = (client: TestClient) =>
    tokenRequest(server.app, { grant_type: 'client_credentials', client_id: client.uid, client_secret: client.secret! });

  it.each(['client_secret_post', 'client_secret_basic'] as const)(
    'a client registered with %s authenticates with Basic and with the body',
    async (method) => {
      const client = await registered(method);
      expect((await withBasic(client)).statusCode).toBe(200);
      expect((await withPost(client)).statusCode).toBe(200);
    },
  );

  it('a client registered with none is public: client_id alone identifies it; a made-up secret is invalid_client', async () => {
    const client = await registered('none', false);
    expect(client.secret).toBeNull();
    const publicOnly = await tokenRequest(server.app, { grant_type: 'client_credentials', client_id: client.uid });
    expect(publicOnly.json().error).toBe('unauthorized_client');
    const withSecret = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, 'made-up'));
    expect(withSecret.statusCode).toBe(401);
    expect(withSecret.json().error).toBe('invalid_client');
  });
});
