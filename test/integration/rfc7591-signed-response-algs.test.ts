import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signedIn } from '../helpers/end-user.js';
import { bearer } from '../helpers/oauth-requests.js';
import { CALLBACK, codeFlow, jwksOf, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// OpenID Connect Registration 1.0 section 2: a relying party registering by RFC 7591 may name the algorithm of its ID
// tokens and of signed UserInfo answers; openid-client set to that algorithm refuses any other. While OpenID Connect
// is off, ignored as the other OpenID Connect metadata is.

const JSON_HEADERS = { 'content-type': 'application/json' };
const REGISTRATION = { registration: { policy: 'open' as const, perAddressPerMinute: 0 } };

describe(`RFC 7591 id_token_signed_response_alg and userinfo_signed_response_alg (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openIdServer({ config: REGISTRATION });
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  const register = (target: TestServer, metadata: object) =>
    target.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: JSON_HEADERS,
      payload: { redirect_uris: [CALLBACK], ...metadata },
    });

  it('are stored and echoed; the ID token and the UserInfo answer are signed with them', async () => {
    const response = await register(server, {
      scope: 'openid',
      id_token_signed_response_alg: 'ES256',
      userinfo_signed_response_alg: 'EdDSA',
    });
    expect(response.statusCode, response.body).toBe(201);
    const client = response.json();
    expect(client).toMatchObject({ id_token_signed_response_alg: 'ES256', userinfo_signed_response_alg: 'EdDSA' });
    const application = (await server.deps.stores.applications.findByUid(client.client_id))!;
    const agent = await signedIn(server.app, 'alice');
    const { response: tokens } = await codeFlow(server, agent, { application, plainSecret: client.client_secret });
    expect(tokens.statusCode, tokens.body).toBe(200);
    const { id_token: idToken, access_token: accessToken } = tokens.json();
    expect(decodeProtectedHeader(idToken).alg).toBe('ES256');
    const keys = createLocalJWKSet(await jwksOf(server));
    await jwtVerify(idToken, keys, { audience: client.client_id, algorithms: ['ES256'] });
    const userinfo = await server.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: bearer(accessToken) });
    expect(userinfo.headers['content-type']).toMatch(/^application\/jwt/);
    expect(decodeProtectedHeader(userinfo.body).alg).toBe('EdDSA');
  });

  it('an algorithm this server does not sign with, a lower-case name or none is invalid_client_metadata', async () => {
    for (const metadata of [
      { id_token_signed_response_alg: 'none' },
      { id_token_signed_response_alg: 'es256' },
      { userinfo_signed_response_alg: 42 },
    ]) {
      const response = await register(server, metadata);
      expect(response.statusCode, JSON.stringify(metadata)).toBe(400);
      expect(response.json().error).toBe('invalid_client_metadata');
    }
  });

  it('while OpenID Connect is off they are ignored, as the other OpenID Connect metadata', async () => {
    const off = await buildTestServer({ config: REGISTRATION });
    try {
      const response = await register(off, { id_token_signed_response_alg: 'ES256' });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).not.toHaveProperty('id_token_signed_response_alg');
    } finally {
      await off.close();
    }
  });
});
