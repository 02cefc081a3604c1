import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retireSigningKey } from '../../src/oauth/keys/signing-key-service.js';
import { createTokenSigner } from '../../src/oauth/keys/token-signer.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// GET /oauth/jwks and the signer (issue 16): keys made at boot, shared by every instance through the database,
// verified here with jose as a relying party verifies an ID token.

const env = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
const openid = { openid: { enabled: true }, keys: { algorithms: ['RS256', 'ES256'] as Array<'RS256' | 'ES256'> } };

describe(`GET /oauth/jwks with openid.enabled (${backend})`, () => {
  let db: TestDatabase;
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    [one, two] = await Promise.all([
      buildTestServer({ config: openid, env, testDatabase: db }),
      buildTestServer({ config: openid, env, testDatabase: db }),
    ]);
    await Promise.all([one.app.ready(), two.app.ready()]);
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await db.drop();
  });

  const jwks = async (server: TestServer) => {
    const response = await server.app.inject({ method: 'GET', url: '/oauth/jwks' });
    expect(response.statusCode).toBe(200);
    return { response, body: response.json() as JSONWebKeySet };
  };

  it('publishes one key per algorithm, made at boot by one of two instances, public parts only, cacheable for half the publish-ahead window', async () => {
    const { response, body } = await jwks(one);
    expect(response.headers['content-type']).toContain('application/jwk-set+json');
    expect(response.headers['cache-control']).toBe('public, max-age=43200');
    expect(body.keys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    for (const key of body.keys) {
      expect(key).toMatchObject({ use: 'sig', kid: expect.any(String) });
      expect(key).not.toHaveProperty('d');
    }
    expect((await jwks(two)).body).toEqual(body);
  });

  it('a token signed by one instance validates with the JWKS served by the other, for each algorithm', async () => {
    const keySet = createLocalJWKSet((await jwks(two)).body);
    for (const alg of ['RS256', 'ES256'] as const) {
      const token = await createTokenSigner(one.deps).sign({ sub: 'user-1', iss: one.config.baseUrl }, { alg });
      const { payload, protectedHeader } = await jwtVerify(token, keySet, { issuer: one.config.baseUrl });
      expect([payload.sub, protectedHeader.alg]).toEqual(['user-1', alg]);
    }
  });

  it('the metadata names the JWKS', async () => {
    const metadata = (await one.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.jwks_uri).toBe(`${one.config.baseUrl}/oauth/jwks`);
  });

  it('a retired key leaves the JWKS at once, and what it signed no longer validates', async () => {
    const token = await createTokenSigner(one.deps).sign({ sub: 'user-1' });
    const { body } = await jwks(one);
    const rs256 = body.keys.find((key) => key.alg === 'RS256')!;
    expect((await retireSigningKey(one.deps, rs256.kid!)).retired).toBe(true);
    const after = (await jwks(two)).body;
    expect(after.keys.map((key) => key.kid)).not.toContain(rs256.kid);
    await expect(jwtVerify(token, createLocalJWKSet(after))).rejects.toThrow();
    // A new RS256 key signs at once, and what it signs validates.
    const fresh = await createTokenSigner(two.deps).sign({ sub: 'user-2' });
    expect((await jwtVerify(fresh, createLocalJWKSet((await jwks(one)).body))).payload.sub).toBe('user-2');
  });
});

describe(`without openid.enabled (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  it('there is no JWKS and the metadata claims none', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/oauth/jwks' })).statusCode).toBe(404);
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata).not.toHaveProperty('jwks_uri');
  });
});
