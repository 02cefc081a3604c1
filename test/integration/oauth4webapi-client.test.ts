import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCode, createUser, type TestClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// A real, strict OAuth client library (oauth4webapi v3) against a listening server: what it accepts is what
// standards-following clients accept (RFC 6749, RFC 7009, RFC 7662, RFC 7636).

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const http = { [oauth.allowInsecureRequests]: true };

describe(`oauth4webapi against a listening server on ${backend}`, () => {
  let server: TestServer;
  let registered: TestClient;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let auth: oauth.ClientAuth;
  let userId: number;

  beforeAll(async () => {
    server = await buildTestServer();
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    as = {
      issuer: address,
      token_endpoint: `${address}/oauth/token`,
      revocation_endpoint: `${address}/oauth/revoke`,
      introspection_endpoint: `${address}/oauth/introspect`,
    };
    registered = await createClient(server.deps);
    client = { client_id: registered.uid };
    auth = oauth.ClientSecretBasic(registered.secret!);
    userId = (await createUser(server.deps)).id;
  });
  afterAll(() => server.close());

  it('client_credentials (RFC 6749 section 4.4) with client_secret_basic', async () => {
    const response = await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams({ scope: 'read' }), http);
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'read' });
    expect(tokens.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('a wrong secret surfaces as the Basic challenge of a 401 (RFC 6749 section 5.2)', async () => {
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('wrong'), new URLSearchParams(), http);
    expect(response.status).toBe(401);
    const error = await oauth.processClientCredentialsResponse(as, client, response).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((error as oauth.WWWAuthenticateChallengeError).cause).toEqual([{ scheme: 'basic', parameters: { realm: 'oauth-service' } }]);
  });

  it('introspection (RFC 7662) of an active token, then revocation (RFC 7009) makes it inactive', async () => {
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams(), http),
    );
    const introspected = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, http),
    );
    expect(introspected).toMatchObject({ active: true, client_id: registered.uid, token_type: 'Bearer', scope: 'read' });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, http));
    const after = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, http),
    );
    expect(after).toEqual({ active: false });
  });

  it('authorization_code with PKCE S256 (RFC 7636), then refresh (RFC 6749 section 6) with rotation', async () => {
    const { code, redirectUri } = await createCode(server.deps, {
      application: registered.application,
      resourceOwnerId: userId,
      codeChallenge: CHALLENGE,
      codeChallengeMethod: 'S256',
    });
    const callback = oauth.validateAuthResponse(as, client, new URL(`${redirectUri}?code=${code}`), oauth.expectNoState);
    const exchanged = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callback, redirectUri, VERIFIER, http),
    );
    expect(exchanged).toMatchObject({ token_type: 'bearer', scope: 'read', expires_in: 7200 });
    expect(exchanged.refresh_token).toBeDefined();

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, exchanged.refresh_token!, http),
    );
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(exchanged.refresh_token);

    const replay = await oauth.refreshTokenGrantRequest(as, client, auth, exchanged.refresh_token!, http);
    const error = await oauth.processRefreshTokenResponse(as, client, replay).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    expect((error as oauth.ResponseBodyError).error).toBe('invalid_grant');
    expect((error as oauth.ResponseBodyError).status).toBe(400);
  });

  it('introspection of the refresh token a client holds (RFC 7662 section 2.1, token_type_hint)', async () => {
    const { code, redirectUri } = await createCode(server.deps, { application: registered.application, resourceOwnerId: userId });
    const callback = oauth.validateAuthResponse(as, client, new URL(`${redirectUri}?code=${code}`), oauth.expectNoState);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callback, redirectUri, oauth.nopkce, http),
    );
    const response = await oauth.introspectionRequest(as, client, auth, tokens.refresh_token!, {
      ...http,
      additionalParameters: { token_type_hint: 'refresh_token' },
    });
    expect(await oauth.processIntrospectionResponse(as, client, response)).toMatchObject({ active: true, client_id: registered.uid });
  });
});
