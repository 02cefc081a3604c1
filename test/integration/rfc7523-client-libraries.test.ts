import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, jwksOf, privateKeyJwtClient } from '../helpers/client-assertions.js';
import { createClient } from '../helpers/factories.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { discovered, insecureHttp } from '../helpers/oauth4webapi.js';

// Issue 34 item 1 with the client libraries people use: openid-client 6 (PrivateKeyJwt, ClientSecretJwt) discovers
// this service and gets a client_credentials token; oauth4webapi (which openid-client is built on) also introspects
// and revokes with its assertions, so each endpoint's aud choice (the issuer) is what a strict library sends.

describe(`JWT client authentication with openid-client 6 and oauth4webapi (${backend})`, () => {
  let server: TestServer & { baseUrl: string };
  beforeAll(async () => {
    // client_secret_jwt keys HS256 with the secret itself: secrets stored as they are.
    server = await listeningTestServer({ grantFlows: ['client_credentials'], hashApplicationSecrets: false, defaultScopes: ['read'] });
  });
  afterAll(() => server.close());

  const discover = (clientId: string, auth: openid.ClientAuth) =>
    openid.discovery(new URL(server.baseUrl), clientId, undefined, auth, { execute: [openid.allowInsecureRequests], algorithm: 'oauth2' });

  it('openid-client PrivateKeyJwt: discovery lists the method and the token endpoint issues a token', async () => {
    const key = await clientKey('PS256');
    const client = await privateKeyJwtClient(server.deps, { jwks: jwksOf(key) });
    const config = await discover(client.uid, openid.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }));
    expect(config.serverMetadata()).toMatchObject({
      token_endpoint_auth_methods_supported: expect.arrayContaining(['private_key_jwt', 'client_secret_jwt']),
      token_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519', 'HS256'],
    });
    const tokens = await openid.clientCredentialsGrant(config, { scope: 'read' });
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'read' });
  });

  // oauth4webapi (so openid-client) names an Ed25519 key's signatures Ed25519 (RFC 9864), not EdDSA.
  it.each(['Ed25519', 'EdDSA'])('openid-client PrivateKeyJwt with an Ed25519 key whose JWK says alg %s: a token', async (jwkAlg) => {
    const key = await clientKey('Ed25519');
    const client = await privateKeyJwtClient(server.deps, { jwks: { keys: [{ ...key.publicJwk, alg: jwkAlg }] } });
    const config = await discover(client.uid, openid.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }));
    expect(await openid.clientCredentialsGrant(config, { scope: 'read' })).toMatchObject({ token_type: 'bearer', scope: 'read' });
  });

  it('openid-client ClientSecretJwt: a token; a wrong secret is invalid_client', async () => {
    const client = await createClient(server.deps, { tokenEndpointAuthMethod: 'client_secret_jwt' });
    const config = await discover(client.uid, openid.ClientSecretJwt(client.secret!));
    expect(await openid.clientCredentialsGrant(config)).toMatchObject({ token_type: 'bearer' });
    const wrong = await discover(client.uid, openid.ClientSecretJwt('x'.repeat(43)));
    await expect(openid.clientCredentialsGrant(wrong)).rejects.toMatchObject({ error: 'invalid_client', status: 401 });
  });

  it('oauth4webapi PrivateKeyJwt at the token, introspection and revocation endpoints', async () => {
    const key = await clientKey('ES256');
    const registered = await privateKeyJwtClient(server.deps, { jwks: jwksOf(key) });
    const as = await discovered(server.baseUrl);
    const client = { client_id: registered.uid };
    // Each request signs a fresh assertion (its own jti), so one ClientAuth serves every call.
    const auth = oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.kid });
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams({ scope: 'read' }), insecureHttp),
    );
    const introspect = async () =>
      oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecureHttp));
    expect(await introspect()).toMatchObject({ active: true, client_id: registered.uid });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, insecureHttp));
    expect(await introspect()).toEqual({ active: false });
  });
});
