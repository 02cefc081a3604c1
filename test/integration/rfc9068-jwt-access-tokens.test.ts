import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, signedIn } from '../helpers/end-user.js';
import { codeFlow, jwksOf, openIdServer } from '../helpers/openid.js';
import { basic, introspectRequest, revokeRequest, tokenInfoRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 9068 JWT access tokens, for a resource or an application that asks for them: what an API verifies by itself,
// while this server keeps the token like an opaque one (revocation, introspection and token info unchanged).

const API = 'https://jwt-api.example.com';

describe(`JWT access tokens, RFC 9068 (${backend})`, () => {
  let server: TestServer;
  let client: Awaited<ReturnType<typeof createClient>>;
  let issuer: string;
  beforeAll(async () => {
    server = await openIdServer({ config: { grantFlows: ['authorization_code', 'client_credentials', 'refresh_token'] } });
    issuer = server.config.baseUrl.replace(/\/+$/, '');
    client = await createClient(server.deps);
    await server.deps.stores.resources.create({
      uri: API,
      name: 'JWT API',
      scopes: ['read', 'openid'],
      tokenFormat: 'jwt',
      accessTokenLifetime: 900,
      serverClientId: null,
    });
  });
  afterAll(() => server.close());

  const credentials = () => basic(client.application.uid, client.plainSecret!);
  const jwtFor = async (parameters: Record<string, string>) => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read', ...parameters }, credentials());
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  const verify = async (token: string) =>
    (await jwtVerify(token, createLocalJWKSet(await jwksOf(server)), { issuer, typ: 'at+jwt', algorithms: ['RS256'] })).payload;

  it('sections 2.1 and 2.2: typ at+jwt, the claims, signed by a published key; the lifetime is the resource’s', async () => {
    const body = await jwtFor({ resource: API });
    expect(body.expires_in).toBe(900);
    expect(decodeProtectedHeader(body.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    const claims = await verify(body.access_token);
    expect(claims).toMatchObject({ iss: issuer, aud: API, sub: client.application.uid, client_id: client.application.uid, scope: 'read' });
    expect(claims.exp).toBe((claims.iat as number) + 900);
    expect(typeof claims.jti).toBe('string');
  });

  it('section 2.2: with a user, sub is their stable subject and auth_time and amr say how they signed in', async () => {
    const user = await createUser(server.deps, 'jwt-alice');
    const agent = await signedIn(server.app, 'jwt-alice');
    const { response } = await codeFlow(server, agent, client, { scope: 'openid read', resource: API });
    expect(response.statusCode).toBe(200);
    const claims = await verify(response.json().access_token);
    expect(claims).toMatchObject({ sub: user.subject, aud: API, scope: 'openid read', amr: ['pwd'], acr: 'urn:oauth-service:acr:pwd' });
    expect(typeof claims.auth_time).toBe('number');
    const refreshed = await tokenRequest(
      server.app,
      { grant_type: 'refresh_token', refresh_token: response.json().refresh_token },
      credentials(),
    );
    const again = await verify(refreshed.json().access_token);
    // The refreshed token repeats the sign-in it descends from (issue 35: amr and acr are stored with the token).
    expect(again).toMatchObject({
      sub: user.subject,
      auth_time: claims.auth_time,
      amr: ['pwd'],
      acr: 'urn:oauth-service:acr:pwd',
      aud: API,
    });
    expect(again.jti).not.toBe(claims.jti);
  });

  it('a revoked JWT is inactive at introspection at once, although its signature still verifies', async () => {
    const { access_token: token } = await jwtFor({ resource: API });
    expect((await introspectRequest(server.app, { token }, credentials())).json()).toMatchObject({ active: true, aud: API });
    expect((await revokeRequest(server.app, { token }, credentials())).statusCode).toBe(200);
    expect((await introspectRequest(server.app, { token }, credentials())).json()).toEqual({ active: false });
    await expect(verify(token)).resolves.toBeTruthy();
  });

  it('token info takes a JWT like any token', async () => {
    const { access_token: token } = await jwtFor({ resource: API });
    const info = await tokenInfoRequest(server.app, { authorization: `Bearer ${token}` });
    expect(info.statusCode).toBe(200);
    expect(info.json()).toMatchObject({ scope: ['read'] });
  });

  it('an application with access_token_format jwt gets JWTs without a resource, for this server (aud = issuer)', async () => {
    const own = await createClient(server.deps);
    await server.deps.stores.applicationAdmin.update(own.application.id, { accessTokenFormat: 'jwt' });
    const response = await tokenRequest(
      server.app,
      { grant_type: 'client_credentials', scope: 'read' },
      basic(own.application.uid, own.plainSecret!),
    );
    expect((await verify(response.json().access_token)).aud).toBe(issuer);
    const opaque = await jwtFor({});
    expect(opaque.access_token.split('.')).toHaveLength(1);
  });
});

describe(`JWT access tokens where access tokens never expire (accessTokenExpiresIn null) (${backend})`, () => {
  it('section 2.2: exp is REQUIRED: a JWT lives a day (the longest a resource may set), its record too; an opaque token stays unlimited', async () => {
    const server = await openIdServer({ config: { accessTokenExpiresIn: null, grantFlows: ['client_credentials'] } });
    try {
      const client = await createClient(server.deps);
      await server.deps.stores.resources.create({
        uri: API,
        name: '',
        scopes: ['read'],
        tokenFormat: 'jwt',
        accessTokenLifetime: null,
        serverClientId: null,
      });
      const request = (parameters: Record<string, string>) =>
        tokenRequest(
          server.app,
          { grant_type: 'client_credentials', scope: 'read', ...parameters },
          basic(client.application.uid, client.plainSecret!),
        );
      const jwt = (await request({ resource: API })).json();
      expect(jwt.expires_in).toBe(86_400);
      const claims = decodeJwt(jwt.access_token);
      expect(claims.exp).toBe(claims.iat! + 86_400);
      const introspected = (
        await introspectRequest(server.app, { token: jwt.access_token }, basic(client.application.uid, client.plainSecret!))
      ).json();
      expect(introspected.exp).toBe(claims.exp);
      const opaque = (await request({})).json();
      expect(opaque).not.toHaveProperty('expires_in');
    } finally {
      await server.close();
    }
  });
});

describe(`JWT access tokens while OpenID Connect is off (${backend})`, () => {
  it('a resource or an application marked jwt while it was on gets opaque tokens: no JWKS is published to verify a JWT', async () => {
    const server = await buildTestServer({ config: { grantFlows: ['client_credentials'] } });
    try {
      expect(server.config.openid.enabled).toBe(false);
      const client = await createClient(server.deps);
      await server.deps.stores.applicationAdmin.update(client.application.id, { accessTokenFormat: 'jwt' });
      await server.deps.stores.resources.create({
        uri: API,
        name: '',
        scopes: ['read'],
        tokenFormat: 'jwt',
        accessTokenLifetime: 900,
        serverClientId: null,
      });
      const credentials = basic(client.application.uid, client.plainSecret!);
      for (const parameters of [{ resource: API }, {}] as Record<string, string>[]) {
        const response = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read', ...parameters }, credentials);
        expect(response.statusCode, response.body).toBe(200);
        const token = response.json().access_token as string;
        expect(token.split('.')).toHaveLength(1);
        expect((await introspectRequest(server.app, { token }, credentials)).json()).toMatchObject({ active: true, scope: 'read' });
      }
    } finally {
      await server.close();
    }
  });
});
