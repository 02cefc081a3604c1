import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { decodeProtectedHeader, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard, type JwtGuardOptions } from '@oauth-service/guard';
import { freePort } from '../../scripts/lib/ports.js';
import { rotateSigningKey } from '../../src/oauth/keys/signing-key-service.js';
import { createTokenSigner } from '../../src/oauth/keys/token-signer.js';
import { createClient, storeAccessToken, type TestClient } from '../helpers/factories.js';
import { basic, revokeRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { createJwtResource, openIdServer } from '../helpers/openid.js';
import type { TestServer } from '../helpers/test-server.js';
import { bearer } from './guard-helpers.js';

// The guard in jwt mode against a running service with OpenID Connect on: the issuer's RFC 8414 metadata names its
// jwks_uri, and tokens are signed by the service's own signer with typ at+jwt (RFC 9068), so these tests do not
// depend on how the service issues JWT access tokens.
const RESOURCE = 'https://notes.example.com/api';

describe('guard (jwt mode): JWT access tokens verified with the service JWKS', () => {
  let server: TestServer & { baseUrl: string };
  let client: TestClient;
  let api: FastifyInstance;
  let serviceRequests: string[] = [];

  const issue = async (overrides: JWTPayload = {}, options: { typ?: string } = {}) => {
    const now = Math.floor(server.clock.now.getTime() / 1000);
    const claims = { iss: server.baseUrl, aud: [RESOURCE], sub: 'user-1', client_id: client.uid, scope: 'read' };
    const payload = { ...claims, jti: randomBytes(8).toString('hex'), iat: now, exp: now + 900, ...overrides };
    // A new signer each time: the server's own keeps its key list for 5 s of real time.
    return createTokenSigner(server.deps).sign(payload, { typ: options.typ ?? 'at+jwt' });
  };

  async function jwtApi(extra: Partial<JwtGuardOptions> = {}): Promise<FastifyInstance> {
    const app = Fastify();
    await app.register(serviceGuard, {
      mode: 'jwt',
      issuer: server.baseUrl,
      resource: RESOURCE,
      scopesSupported: ['read', 'write'],
      now: () => server.clock.now.getTime(),
      ...extra,
    } as JwtGuardOptions);
    app.get('/notes', { preHandler: app.serviceAuthorize('read') }, async (request) => ({ token: await request.serviceToken() }));
    app.get('/notes/write', { preHandler: app.serviceAuthorize('write') }, async () => ({ ok: true }));
    app.delete('/notes', { preHandler: app.serviceAuthorize('read') }, async () => ({ deleted: true }));
    return app;
  }

  beforeAll(async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    server = Object.assign(await openIdServer({ config: { baseUrl, openid: { enabled: true }, keys: { publishAheadSeconds: 60 } } }), {
      baseUrl,
    });
    server.app.addHook('onRequest', async (request) => {
      serviceRequests.push(request.url);
    });
    await server.app.listen({ port, host: '127.0.0.1' });
    client = await createClient(server.deps);
    api = await jwtApi();
  });
  afterAll(async () => {
    await api.close();
    await server.close();
  });

  const get = (app: FastifyInstance, url: string, token: string) => app.inject({ method: 'GET', url, headers: bearer(token) });

  it('discovers the JWKS (RFC 8414), then verifies tokens without calling the service', async () => {
    serviceRequests = [];
    const response = await get(api, '/notes', await issue());
    expect(response.statusCode).toBe(200);
    expect(response.json().token).toMatchObject({ active: true, scopes: ['read'], clientId: client.uid, resourceOwnerId: 'user-1' });
    expect(serviceRequests).toEqual(['/.well-known/oauth-authorization-server', '/oauth/jwks']);
    for (let i = 0; i < 5; i += 1) expect((await get(api, '/notes', await issue())).statusCode).toBe(200);
    expect(serviceRequests).toHaveLength(2);
  });

  it('a client_credentials token (sub = client_id) has no resource owner', async () => {
    const response = await get(api, '/notes', await issue({ sub: client.uid }));
    expect(response.json().token.resourceOwnerId).toBeNull();
  });

  it('refuses a token for another resource, and one issued for no resource (aud = the issuer only)', async () => {
    for (const aud of [['https://other.example.com/api'], server.baseUrl]) {
      const response = await get(api, '/notes', await issue({ aud }));
      expect(response.statusCode).toBe(401);
      expect(response.json().error_description).toBe('The access token is not meant for this resource');
    }
  });

  it('refuses what is not an access token: an ID-token-like typ "JWT", another issuer, an expired one', async () => {
    expect((await get(api, '/notes', await issue({}, { typ: 'JWT' }))).statusCode).toBe(401);
    expect((await get(api, '/notes', await issue({ iss: 'https://evil.example.com' }))).statusCode).toBe(401);
    const expired = await get(api, '/notes', await issue({ exp: Math.floor(server.clock.now.getTime() / 1000) - 10 }));
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error_description).toBe('The access token expired');
  });

  it('answers 403 insufficient_scope with the scope and the resource metadata URL (RFC 9728 section 5.1)', async () => {
    const response = await get(api, '/notes/write', await issue());
    expect(response.statusCode).toBe(403);
    expect(response.headers['www-authenticate']).toContain(
      'scope="write", resource_metadata="https://notes.example.com/.well-known/oauth-protected-resource/api"',
    );
  });

  it('picks up a rotated key while it runs: the new kid is fetched once, the old key still verifies', async () => {
    const before = await issue();
    const oldKid = decodeProtectedHeader(before).kid;
    expect((await get(api, '/notes', before)).statusCode).toBe(200);
    const rotated = await rotateSigningKey(server.deps, 'RS256');
    server.clock.advance(61); // past publishAheadSeconds: the new key signs; past the guard's 30 s cooldown too
    const after = await issue();
    expect(decodeProtectedHeader(after).kid).toBe(rotated.kid);
    expect(rotated.kid).not.toBe(oldKid);
    serviceRequests = [];
    expect((await get(api, '/notes', after)).statusCode).toBe(200);
    expect(serviceRequests).toEqual(['/oauth/jwks']);
    expect((await get(api, '/notes', before)).statusCode).toBe(200);
    expect((await get(api, '/notes', await issue())).statusCode).toBe(200);
    expect(serviceRequests).toHaveLength(1);
  });

  it('introspects the listed routes so that a revocation is seen at once; other routes do not ask', async () => {
    const app = await jwtApi({
      introspect: ['DELETE /notes'],
      introspectionUrl: `${server.baseUrl}/oauth/introspect`,
      clientId: client.uid,
      clientSecret: client.secret!,
    });
    const token = await issue();
    const record = await storeAccessToken(server.deps, client.application, token, [RESOURCE]);
    expect((await app.inject({ method: 'DELETE', url: '/notes', headers: bearer(token) })).statusCode).toBe(200);
    await server.deps.stores.accessTokens.revoke(record.id, server.clock.now);
    serviceRequests = [];
    const refused = await app.inject({ method: 'DELETE', url: '/notes', headers: bearer(token) });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error_description).toBe('The access token was revoked');
    expect(serviceRequests).toEqual(['/oauth/introspect']);
    // The documented trade-off: a route not listed accepts the revoked JWT until its exp.
    expect((await get(app, '/notes', token)).statusCode).toBe(200);
    expect(serviceRequests).toHaveLength(1);
    await app.close();
  });

  it('a GET route listed covers its HEAD, which Fastify answers with the GET handler: a revoked JWT is refused on both', async () => {
    const app = await jwtApi({
      introspect: ['GET /notes'],
      introspectionUrl: `${server.baseUrl}/oauth/introspect`,
      clientId: client.uid,
      clientSecret: client.secret!,
    });
    const token = await issue();
    const record = await storeAccessToken(server.deps, client.application, token, [RESOURCE]);
    expect((await app.inject({ method: 'HEAD', url: '/notes', headers: bearer(token) })).statusCode).toBe(200);
    await server.deps.stores.accessTokens.revoke(record.id, server.clock.now);
    for (const method of ['GET', 'HEAD'] as const)
      expect((await app.inject({ method, url: '/notes', headers: bearer(token) })).statusCode, method).toBe(401);
    await app.close();
  });

  it('end to end: a JWT the service issues for the resource (RFC 8707 resource at /oauth/token) is accepted, revoked at once where introspected', async () => {
    await createJwtResource(server.deps, RESOURCE);
    const credentials = basic(client.uid, client.secret!);
    const issued = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read', resource: RESOURCE }, credentials);
    expect(issued.statusCode, issued.body).toBe(200);
    const token: string = issued.json().access_token;
    const accepted = await get(api, '/notes', token);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().token).toMatchObject({ clientId: client.uid, resourceOwnerId: null, scopes: ['read'], audience: [RESOURCE] });
    const introspecting = await jwtApi({
      introspect: 'always',
      introspectionUrl: `${server.baseUrl}/oauth/introspect`,
      clientId: client.uid,
      clientSecret: client.secret!,
    });
    expect((await get(introspecting, '/notes', token)).statusCode).toBe(200);
    expect((await revokeRequest(server.app, { token }, credentials)).statusCode).toBe(200);
    expect((await get(introspecting, '/notes', token)).statusCode).toBe(401);
    expect((await get(api, '/notes', token)).statusCode).toBe(200); // no introspection: usable until its exp
    await introspecting.close();
  });

  it("answers 500 server_error where it introspects when the service refuses the API's credentials, and reports it", async () => {
    const reports: unknown[] = [];
    const app = await jwtApi({
      introspect: ['DELETE /notes'],
      introspectionUrl: `${server.baseUrl}/oauth/introspect`,
      clientId: client.uid,
      clientSecret: 'not-the-secret',
      logger: { error: (details) => reports.push(details) },
    });
    const token = await issue();
    const refused = await app.inject({ method: 'DELETE', url: '/notes', headers: bearer(token) });
    expect(refused.statusCode).toBe(500);
    expect(refused.json()).toEqual({ error: 'server_error', error_description: 'the API is misconfigured' });
    expect(refused.headers['www-authenticate']).toBeUndefined();
    expect(reports).toEqual([expect.objectContaining({ status: 401, serviceError: 'invalid_client' })]);
    expect((await get(app, '/notes', token)).statusCode).toBe(200); // verified without introspection
    await app.close();
  });

  it('answers 503 when the issuer metadata names another issuer (RFC 8414 section 3.3), never 200', async () => {
    const elsewhere = server.baseUrl.replace('127.0.0.1', 'localhost');
    const app = await jwtApi({ issuer: elsewhere });
    const response = await get(app, '/notes', await issue({ iss: elsewhere }));
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toBe('temporarily_unavailable');
    await app.close();
  });

  it('serves the protected resource metadata with the issuer as its authorization server', async () => {
    const response = await api.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/api' });
    expect(response.json()).toEqual({
      resource: RESOURCE,
      authorization_servers: [server.baseUrl],
      scopes_supported: ['read', 'write'],
      bearer_methods_supported: ['header'],
    });
  });

  it('refuses to start without a resource, or with introspection but no credentials', async () => {
    await expect(jwtApi({ resource: undefined })).rejects.toThrow(/resource/);
    await expect(jwtApi({ introspect: 'always' })).rejects.toThrow(/introspectionUrl/);
    await expect(jwtApi({ algorithms: ['HS256' as 'RS256'] })).rejects.toThrow(/algorithms/);
  });

  // Found by the guard's audit: each of these passed the registration, then failed every request (503 or 500), or
  // made the guard less strict than written.
  it('refuses to start with an option a request would trip over, naming it', async () => {
    const refusals: Array<[Record<string, unknown>, string]> = [
      [
        { issuer: `${server.baseUrl}/` },
        "issuer must be the issuer identifier exactly as the server's metadata gives it, without a trailing slash",
      ],
      [{ issuer: undefined }, "jwt mode needs issuer, the authorization server's issuer identifier"],
      [{ introspectionUrl: 'http://api:secret@127.0.0.1/oauth/introspect' }, 'introspectionUrl must not carry a user name or password'],
      [{ timeoutMs: 1e12 }, 'timeoutMs must be at most 2147483647'],
      [{ acceptTokensWithoutAudience: 'false' }, 'acceptTokensWithoutAudience must be true or false, got "false"'],
      [{ acceptMissingTokenType: 'false' }, 'acceptMissingTokenType must be true or false'],
      [{ resolveResourceOwner: 'x' }, 'resolveResourceOwner must be a function'],
      [{ serviceUnauthorizedRenderOptions: {} }, 'serviceUnauthorizedRenderOptions must be a function'],
      [{ cacheTTLSeconds: 5 }, 'unknown option cacheTTLSeconds (did you mean cacheTtlSeconds?)'],
      [{ dpop: { requird: true } }, 'unknown option dpop.requird'],
      [{ dpop: { required: 'true' } }, 'dpop.required must be true or false'],
      [{ mode: 'remte' }, "mode must be 'local', 'remote' or 'jwt', got \"remte\""],
    ];
    for (const [extra, message] of refusals)
      await expect(jwtApi(extra as Partial<JwtGuardOptions>), JSON.stringify(extra)).rejects.toThrow(`serviceGuard: ${message}`);
    const local = Fastify().register(serviceGuard, { introspect: async () => null, introspectionUrl: 'https://as.example/i' } as never);
    await expect(local.ready()).rejects.toThrow(
      "serviceGuard: introspectionUrl is an option of mode 'remote' and 'jwt', not of mode 'local'",
    );
  });
});
