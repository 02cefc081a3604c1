import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateApplication } from '../../src/oauth/clients/applications.js';
import { createClient, createCode, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// A scope the admin removes from an application is gone at once: a refresh that names it and a code issued
// before the change no longer yield it (finding 5).

describe(`scopes removed from an application are not granted again (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let userId: number;

  beforeAll(async () => {
    server = await buildTestServer({ config: { optionalScopes: ['write', 'admin'] } });
    client = await createClient(server.deps, { scopes: 'read write admin' });
    userId = (await createUser(server.deps)).id;
  });
  afterAll(() => server.close());

  const setScopes = (scopes: string) =>
    updateApplication(server.deps, client.application.id, {
      name: client.application.name,
      redirectUri: client.application.redirectUris.join('\n'),
      scopes,
      confidential: true,
    });
  const removeAdminScope = () => setScopes('read write');
  const restoreScopes = () => setScopes('read write admin');

  it('POST /oauth/token grant_type=refresh_token with scope naming a removed scope does not keep it', async () => {
    const { refreshToken } = await issueToken(server.deps, {
      application: client.application,
      resourceOwnerId: userId,
      scopes: ['read', 'admin'],
      withRefreshToken: true,
      grantType: 'authorization_code',
    });
    await removeAdminScope();
    const response = await tokenRequest(
      server.app,
      { grant_type: 'refresh_token', refresh_token: refreshToken!, scope: 'read admin' },
      basic(client.uid, client.secret!),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().scope).toBe('read');
    await restoreScopes();
  });

  it('POST /oauth/token grant_type=authorization_code: a code issued before the change is exchanged without the removed scope', async () => {
    const grant = await createCode(server.deps, { application: client.application, resourceOwnerId: userId, scopes: ['read', 'admin'] });
    await removeAdminScope();
    const response = await tokenRequest(
      server.app,
      { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri },
      basic(client.uid, client.secret!),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().scope).toBe('read');
    await restoreScopes();
  });
});
