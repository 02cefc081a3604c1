import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCode, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 19, RFC 7591 section 2: a self-registered client (grant_types stored) uses only the grants it registered,
// refresh_token included; anything else is RFC 6749 section 5.2 unauthorized_client. Admin-made applications
// (grant_types null) use every grant the server enables.

const UNAUTHORIZED_CLIENT = {
  error: 'unauthorized_client',
  error_description: 'The client is not authorized to perform this request using this method.',
};

describe(`POST /oauth/token and the client's registered grant_types (${backend})`, () => {
  let server: TestServer;
  let userId: number;
  beforeAll(async () => {
    server = await buildTestServer({ config: { grantFlows: ['authorization_code', 'client_credentials', 'refresh_token'] } });
    userId = (await createUser(server.deps)).id;
  });
  afterAll(() => server.close());

  const registered = async (grantTypes: string[] | null, operatorGrantTypes: string[] = []): Promise<TestClient> => {
    const client = await createClient(server.deps);
    await server.deps.stores.applicationAdmin.update(client.application.id, { grantTypes, registeredBy: 'dynamic', operatorGrantTypes });
    return { ...client, application: (await server.deps.stores.applications.findById(client.application.id))! };
  };
  const exchange = async (client: TestClient) => {
    const { code, redirectUri } = await createCode(server.deps, { application: client.application, resourceOwnerId: userId });
    return tokenRequest(
      server.app,
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri },
      basic(client.uid, client.secret!),
    );
  };
  const refresh = async (client: TestClient) => {
    const issued = await issueToken(server.deps, { application: client.application, resourceOwnerId: userId, withRefreshToken: true });
    return tokenRequest(
      server.app,
      { grant_type: 'refresh_token', refresh_token: issued.refreshToken! },
      basic(client.uid, client.secret!),
    );
  };
  const clientCredentials = (client: TestClient) =>
    tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!));

  it('grant_types [authorization_code]: the code is exchanged without a refresh token; client_credentials and refresh_token are unauthorized_client', async () => {
    const client = await registered(['authorization_code']);
    const exchanged = await exchange(client);
    expect(exchanged.statusCode).toBe(200);
    expect(exchanged.json()).not.toHaveProperty('refresh_token');
    for (const response of [await clientCredentials(client), await refresh(client)]) {
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: UNAUTHORIZED_CLIENT });
    }
  });

  it('a client that may not refresh is told so before anything about the token it sent: an unknown one too', async () => {
    const client = await registered(['authorization_code']);
    const unknown = await tokenRequest(
      server.app,
      { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' },
      basic(client.uid, client.secret!),
    );
    expect({ status: unknown.statusCode, body: unknown.json() }).toEqual({ status: 400, body: UNAUTHORIZED_CLIENT });
  });

  it('grant_types [authorization_code, refresh_token]: the exchange returns a refresh token that refreshes', async () => {
    const client = await registered(['authorization_code', 'refresh_token']);
    const exchanged = (await exchange(client)).json();
    expect(exchanged.refresh_token).toEqual(expect.any(String));
    const refreshed = await tokenRequest(
      server.app,
      { grant_type: 'refresh_token', refresh_token: exchanged.refresh_token },
      basic(client.uid, client.secret!),
    );
    expect(refreshed.statusCode).toBe(200);
    expect((await clientCredentials(client)).json()).toEqual(UNAUTHORIZED_CLIENT);
  });

  it('grant_types [client_credentials]: client_credentials works, a code exchange is unauthorized_client', async () => {
    // Issue 29: client_credentials only as the operator allowed it, here through the client's initial access token.
    const client = await registered(['client_credentials'], ['client_credentials']);
    expect((await clientCredentials(client)).statusCode).toBe(200);
    expect((await exchange(client)).json()).toEqual(UNAUTHORIZED_CLIENT);
  });

  it('client authentication comes first: wrong credentials for an unregistered grant are invalid_client', async () => {
    const client = await registered(['authorization_code']);
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, 'wrong'));
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });

  it('an admin-made application (grant_types null) uses every enabled grant, with refresh tokens', async () => {
    const client = await registered(null);
    expect((await clientCredentials(client)).statusCode).toBe(200);
    expect((await exchange(client)).json().refresh_token).toEqual(expect.any(String));
    expect((await refresh(client)).statusCode).toBe(200);
  });
});
