import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard } from '@oauth-service/guard';
import { freePort } from '../../scripts/lib/ports.js';
import { clientKey, dpopHeaders, type ClientKey } from '../helpers/guard-dpop.js';

// The guard's DPoP binding in remote mode (introspection's cnf.jkt, RFC 9449 section 6.2) and jwt mode (the JWT's
// cnf.jkt, section 6.1), against stand-ins for the authorization server; local mode is in guard-dpop.test.ts.

describe('guard with DPoP, remote mode against a stand-in introspection endpoint (RFC 9449 section 6.2)', () => {
  let key: ClientKey;
  let authorizationServer: FastifyInstance;
  let app: FastifyInstance;
  const answers = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    key = await clientKey();
    authorizationServer = Fastify();
    await authorizationServer.register(import('@fastify/formbody'));
    authorizationServer.post(
      '/oauth/introspect',
      async (request) => answers.get((request.body as { token: string }).token) ?? { active: false },
    );
    const port = await freePort();
    await authorizationServer.listen({ port, host: '127.0.0.1' });
    app = Fastify();
    await app.register(serviceGuard, {
      mode: 'remote',
      introspectionUrl: `http://127.0.0.1:${port}/oauth/introspect`,
      clientId: 'notes-api',
      clientSecret: 'secret',
      dpop: {},
    });
    app.get('/notes', { preHandler: app.serviceAuthorize('read') }, async (request) => ({
      client: (await request.serviceToken())?.clientId,
    }));
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await authorizationServer.close();
  });

  it('a token introspected as token_type DPoP with cnf.jkt passes with a proof by that key, and is refused as Bearer', async () => {
    const value = randomBytes(16).toString('base64url');
    const exp = Math.floor(Date.now() / 1000) + 600;
    answers.set(value, { active: true, token_type: 'DPoP', cnf: { jkt: key.jkt }, scope: 'read', client_id: 'spa', exp });
    const ok = await app.inject({ method: 'GET', url: '/notes', headers: { host: 'api.test', ...(await dpopHeaders(key, value)) } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ client: 'spa' });
    const asBearer = await app.inject({ method: 'GET', url: '/notes', headers: { host: 'api.test', authorization: `Bearer ${value}` } });
    expect(asBearer.statusCode).toBe(401);
    expect(asBearer.headers['www-authenticate']).toMatch(
      /^Bearer realm="oauth-service", DPoP realm="oauth-service", error="invalid_token"/,
    );
    const other = await clientKey();
    const wrongKey = await app.inject({
      method: 'GET',
      url: '/notes',
      headers: { host: 'api.test', ...(await dpopHeaders(other, value)) },
    });
    expect(wrongKey.statusCode).toBe(401);
    expect(wrongKey.json()).toMatchObject({ error: 'invalid_dpop_proof' });
  });
});

describe("guard with DPoP, jwt mode: the binding is the JWT access token's cnf.jkt (RFC 9449 section 6.1)", () => {
  let key: ClientKey;
  let issuerKey: ClientKey;
  let keys: FastifyInstance;
  let app: FastifyInstance;
  let issuer: string;
  const RESOURCE = 'http://localhost/notes';

  const accessToken = (claims: JWTPayload) =>
    new SignJWT({ sub: 'user-1', client_id: 'spa', scope: 'read', aud: RESOURCE, jti: randomBytes(8).toString('hex'), ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(issuer)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(issuerKey.privateKey);

  beforeAll(async () => {
    key = await clientKey();
    issuerKey = await clientKey();
    keys = Fastify();
    keys.get('/jwks', async () => ({ keys: [{ ...issuerKey.jwk, kid: 'k1', alg: 'ES256', use: 'sig' }] }));
    const port = await freePort();
    await keys.listen({ port, host: '127.0.0.1' });
    issuer = `http://127.0.0.1:${port}`;
    app = Fastify();
    await app.register(serviceGuard, { mode: 'jwt', issuer, jwksUri: `${issuer}/jwks`, resource: RESOURCE, dpop: {} });
    app.get('/notes', { preHandler: app.serviceAuthorize('read') }, async () => ({ ok: true }));
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await keys.close();
  });

  const get = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/notes', headers: { host: 'api.test', ...headers } });

  it('a JWT with cnf.jkt passes with a proof by that key; as Bearer, or with another key, it is refused', async () => {
    const bound = await accessToken({ cnf: { jkt: key.jkt } });
    expect((await get(await dpopHeaders(key, bound))).statusCode).toBe(200);
    const asBearer = await get({ authorization: `Bearer ${bound}` });
    expect(asBearer.statusCode).toBe(401);
    expect(asBearer.json()).toMatchObject({ error: 'invalid_token' });
    expect(asBearer.headers['www-authenticate']).toContain('DPoP realm="oauth-service", error="invalid_token"');
    const other = await clientKey();
    expect((await get(await dpopHeaders(other, bound))).json()).toMatchObject({ error: 'invalid_dpop_proof' });
  });

  it('a JWT without cnf passes as Bearer and is refused with the DPoP scheme', async () => {
    const unbound = await accessToken({});
    expect((await get({ authorization: `Bearer ${unbound}` })).statusCode).toBe(200);
    expect((await get(await dpopHeaders(key, unbound))).json()).toMatchObject({ error: 'invalid_token' });
  });
});
