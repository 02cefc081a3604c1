import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/oauth/store.js';
import { backend } from '../helpers/test-database.js';
import { createClient, createUser } from '../helpers/factories.js';
import { buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';
import { bearer, OPENID_ENV, setUserColumns, userToken } from './oidc-userinfo-support.js';

// OpenID Connect Core 1.0 section 5.3.2: a client that registered userinfo_signed_response_alg gets a JWT
// (application/jwt) with iss and aud, signed by a key of the JWKS; verified here with jose as a relying party does.

const config = {
  openid: { enabled: true },
  baseUrl: 'https://id.example.com/',
  keys: { algorithms: ['RS256', 'ES256', 'EdDSA'] as Array<'RS256' | 'ES256' | 'EdDSA'> },
};

describe(`signed UserInfo (${backend})`, () => {
  let server: TestServer;
  let user: UserRecord;

  beforeAll(async () => {
    server = await buildTestServer({ config, env: OPENID_ENV });
    user = await createUser(server.deps);
    await setUserColumns(server, user, { email: 'alice@example.com', email_verified: true, name: 'Alice' });
  });
  afterAll(() => server.close());

  const keySet = async () => {
    const response = await server.app.inject({ method: 'GET', url: '/oauth/jwks' });
    return createLocalJWKSet(response.json() as JSONWebKeySet);
  };

  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
    it(`${alg}: a JWT that verifies against GET /oauth/jwks, with iss (no trailing slash), aud and the claims`, async () => {
      const { application } = await createClient(server.deps);
      const signing = (await server.deps.stores.applicationAdmin.update(application.id, { userinfoSignedResponseAlg: alg }))!;
      const token = await userToken(server, signing, user, ['openid', 'email']);
      for (const response of [
        await server.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: bearer(token) }),
        await server.app.inject({ method: 'POST', url: '/oauth/userinfo', headers: FORM, payload: form({ access_token: token }) }),
      ]) {
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/jwt/);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(decodeProtectedHeader(response.body)).toMatchObject({ alg, typ: 'JWT', kid: expect.any(String) });
        const { payload } = await jwtVerify(response.body, await keySet(), {
          issuer: 'https://id.example.com',
          audience: application.uid,
          algorithms: [alg],
        });
        expect(payload).toEqual({
          iss: 'https://id.example.com',
          aud: application.uid,
          sub: user.subject,
          email: 'alice@example.com',
          email_verified: true,
        });
      }
    });
  }

  it('a client without userinfo_signed_response_alg gets plain JSON', async () => {
    const { application } = await createClient(server.deps);
    const response = await server.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: bearer(await userToken(server, application, user, ['openid', 'profile'])),
    });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toMatchObject({ sub: user.subject, name: 'Alice' });
  });

  it('refusals stay JSON errors, not JWTs', async () => {
    const { application } = await createClient(server.deps);
    const signing = (await server.deps.stores.applicationAdmin.update(application.id, { userinfoSignedResponseAlg: 'RS256' }))!;
    const response = await server.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: bearer(await userToken(server, signing, user, ['profile'])),
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('insufficient_scope');
  });
});
