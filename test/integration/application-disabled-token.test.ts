import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createClient, createCode, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, bearer, introspectRequest, revokeRequest, tokenInfoRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 19: an admin may disable an application (oauth_applications.disabled_at). It then fails client
// authentication everywhere (token, revoke, introspect), exactly as an unknown client does, and introspection
// reports its tokens inactive.

describe(`a disabled application at the token side (${backend})`, () => {
  let server: TestServer;
  let disabled: TestClient;
  let disabledPublic: TestClient;
  let resourceServer: TestClient;
  let userId: number;
  let disabledToken: string;
  let revokeTarget: string;
  let disabledRefresh: string;
  let resourceServerToken: string;
  beforeAll(async () => {
    server = await openIdServer({
      config: {
        introspection: { allow: [{ rule: 'tokenApplication' }, { rule: 'sameApplication' }, { rule: 'bearerScope', scope: 'introspect' }] },
      },
    });
    userId = (await createUser(server.deps)).id;
    disabled = await createClient(server.deps);
    disabledPublic = await createClient(server.deps, { confidential: false });
    resourceServer = await createClient(server.deps);
    disabledToken = (await issueToken(server.deps, { application: disabled.application })).accessToken;
    revokeTarget = (await issueToken(server.deps, { application: disabled.application })).accessToken;
    disabledRefresh = (
      await issueToken(server.deps, { application: disabledPublic.application, resourceOwnerId: userId, withRefreshToken: true })
    ).refreshToken!;
    resourceServerToken = (await issueToken(server.deps, { application: resourceServer.application, scopes: ['introspect'] })).accessToken;
    // Active until the admin disables the client.
    expect((await introspectRequest(server.app, { token: disabledToken }, bearer(resourceServerToken))).json().active).toBe(true);
    for (const client of [disabled, disabledPublic]) {
      await server.deps.stores.applicationAdmin.update(client.application.id, { disabledAt: new Date() });
    }
  });
  afterAll(() => server.close());

  const answer = (response: LightMyRequestResponse) => ({
    status: response.statusCode,
    body: response.json(),
    challenge: response.headers['www-authenticate'],
  });

  it('POST /oauth/token with Basic: 401 invalid_client and the Basic challenge, as for an unknown client', async () => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(disabled.uid, disabled.secret!));
    const unknown = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic('unknown-client', disabled.secret!));
    expect(answer(response)).toEqual(answer(unknown));
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });

  it('POST /oauth/token with client_secret_post: invalid_client, as for an unknown client', async () => {
    const params = { grant_type: 'client_credentials', client_secret: disabled.secret! };
    const response = await tokenRequest(server.app, { ...params, client_id: disabled.uid });
    const unknown = await tokenRequest(server.app, { ...params, client_id: 'unknown-client' });
    expect(answer(response)).toEqual(answer(unknown));
    expect(response.json().error).toBe('invalid_client');
  });

  it('POST /oauth/token grant_type=authorization_code: a disabled client cannot exchange its code', async () => {
    const { code, redirectUri } = await createCode(server.deps, { application: disabled.application, resourceOwnerId: userId });
    const response = await tokenRequest(
      server.app,
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri },
      basic(disabled.uid, disabled.secret!),
    );
    expect(response.json().error).toBe('invalid_client');
  });

  it('POST /oauth/token grant_type=refresh_token: a disabled public client cannot refresh', async () => {
    const response = await tokenRequest(server.app, {
      grant_type: 'refresh_token',
      refresh_token: disabledRefresh,
      client_id: disabledPublic.uid,
    });
    expect(response.json().error).toBe('invalid_client');
  });

  it('POST /oauth/revoke and POST /oauth/introspect as the disabled client: 401 invalid_client', async () => {
    const revoke = await revokeRequest(server.app, { token: revokeTarget }, basic(disabled.uid, disabled.secret!));
    expect(answer(revoke)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const introspect = await introspectRequest(server.app, { token: disabledToken }, basic(disabled.uid, disabled.secret!));
    expect(answer(introspect)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it("POST /oauth/introspect: the disabled client's token is inactive, and is no Bearer credential", async () => {
    const introspection = await introspectRequest(server.app, { token: disabledToken }, bearer(resourceServerToken));
    expect(introspection.json()).toEqual({ active: false });
    const asRequester = await introspectRequest(server.app, { token: resourceServerToken }, bearer(disabledToken));
    expect(asRequester.statusCode).toBe(401);
    expect(asRequester.json().error).toBe('invalid_token');
  });

  it('GET /oauth/token/info and GET /oauth/userinfo refuse its token: 401 invalid_token', async () => {
    const info = await tokenInfoRequest(server.app, bearer(disabledToken));
    expect(info.statusCode).toBe(401);
    const userinfoToken = (
      await issueToken(server.deps, { application: disabledPublic.application, resourceOwnerId: userId, scopes: ['openid'] })
    ).accessToken;
    const userinfo = await server.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: bearer(userinfoToken) });
    expect(userinfo.statusCode).toBe(401);
    expect(userinfo.headers['www-authenticate']).toContain('invalid_token');
  });

  it('enabled again, the client authenticates and its token is active again', async () => {
    const other = await createClient(server.deps);
    const token = (await issueToken(server.deps, { application: other.application })).accessToken;
    await server.deps.stores.applicationAdmin.update(other.application.id, { disabledAt: new Date() });
    expect((await introspectRequest(server.app, { token }, bearer(resourceServerToken))).json()).toEqual({ active: false });
    await server.deps.stores.applicationAdmin.update(other.application.id, { disabledAt: null });
    expect((await introspectRequest(server.app, { token }, bearer(resourceServerToken))).json().active).toBe(true);
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(other.uid, other.secret!));
    expect(response.statusCode).toBe(200);
  });
});
