import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard, type DpopOptions, type GuardToken, type ServiceGuardOptions } from '@oauth-service/guard';
import { ALGS, clientKey, dpopHeaders, NONCE_SECRET, ORIGIN, type ClientKey } from '../helpers/guard-dpop.js';

// An API behind the guard with DPoP on (RFC 9449), against stand-ins for the authorization server: a local-mode
// introspect function and, for remote mode, an introspection endpoint (RFC 7662) that answers token_type "DPoP" with
// cnf.jkt for bound tokens (section 6.2). Proofs are made with jose, as a client library would.

describe('guard with DPoP (RFC 9449), local mode with a stand-in introspect', () => {
  let key: ClientKey;
  let stranger: ClientKey;
  const tokens = new Map<string, GuardToken>();

  const token = (dpopJkt: string | null, scopes = ['read']): string => {
    const value = randomBytes(16).toString('base64url');
    tokens.set(value, { active: true, scopes, clientId: 'spa', resourceOwnerId: 7, expiresAt: Date.now() / 1000 + 600, dpopJkt });
    return value;
  };

  async function api(dpop: DpopOptions = {}, extra: Partial<ServiceGuardOptions> = {}, fastifyOptions = {}): Promise<FastifyInstance> {
    const app = Fastify(fastifyOptions);
    await app.register(serviceGuard, {
      realm: 'notes',
      introspect: async (value) => tokens.get(value) ?? null,
      dpop,
      ...extra,
    } as ServiceGuardOptions);
    app.get('/notes', { preHandler: app.serviceAuthorize('read') }, async (request) => ({
      owner: (await request.serviceToken())?.resourceOwnerId,
    }));
    app.post('/notes', { preHandler: app.serviceAuthorize('write') }, async () => ({ saved: true }));
    await app.ready();
    return app;
  }

  let app: FastifyInstance;

  beforeAll(async () => {
    key = await clientKey();
    stranger = await clientKey();
    app = await api();
  });

  afterAll(() => app.close());

  const get = async (headers: Record<string, string>, target = app, url = '/notes') =>
    target.inject({ method: 'GET', url, headers: { host: 'api.test', ...headers } });

  it('a bound token with a proof by its key: 200', async () => {
    const value = token(key.jkt);
    const response = await get(await dpopHeaders(key, value));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ owner: 7 });
  });

  it('a request without a token: 401 with the Bearer and the DPoP challenge (section 7.1), no error code', async () => {
    const response = await get({});
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="notes", DPoP realm="notes", algs="${ALGS}"`);
  });

  it('a bound token sent as Bearer: 401 invalid_token on the DPoP challenge (section 7.2)', async () => {
    const response = await get({ authorization: `Bearer ${token(key.jkt)}` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="notes", DPoP realm="notes", error="invalid_token", error_description="The access token is bound to a key and must be sent with the DPoP scheme and a proof", algs="${ALGS}"`,
    );
    expect(response.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('a bound token sent as Bearer is refused without the dpop option too (Bearer challenge only)', async () => {
    const plain = Fastify();
    await plain.register(serviceGuard, { realm: 'notes', introspect: async (value) => tokens.get(value) ?? null });
    plain.get('/notes', { preHandler: plain.serviceAuthorize() }, async () => ({ ok: true }));
    const response = await get({ authorization: `Bearer ${token(key.jkt)}` }, plain);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="notes", error="invalid_token"/);
    // And the DPoP scheme is no credential at all there.
    const value = token(key.jkt);
    expect((await get(await dpopHeaders(key, value), plain)).headers['www-authenticate']).toBe('Bearer realm="notes"');
    await plain.close();
  });

  it('an unbound token: accepted as Bearer, refused with the DPoP scheme (invalid_token)', async () => {
    const value = token(null);
    expect((await get({ authorization: `Bearer ${value}` })).statusCode).toBe(200);
    const response = await get(await dpopHeaders(key, value));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toContain(
      'DPoP realm="notes", error="invalid_token", error_description="The access token is not bound',
    );
  });

  it('a proof by another key than the token is bound to: 401 invalid_dpop_proof', async () => {
    const response = await get(await dpopHeaders(stranger, token(key.jkt)));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="notes", DPoP realm="notes", error="invalid_dpop_proof", error_description="The DPoP proof is not signed by the key the access token is bound to", algs="${ALGS}"`,
    );
    expect(response.json()).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'The DPoP proof is not signed by the key the access token is bound to',
    });
  });

  it('a missing proof, a proof for another URL or method, and a replayed proof: 401 invalid_dpop_proof', async () => {
    const value = token(key.jkt);
    const cases = [
      { authorization: `DPoP ${value}` },
      await dpopHeaders(key, value, 'GET', `${ORIGIN}/other`),
      await dpopHeaders(key, value, 'POST'),
    ];
    for (const headers of cases) {
      const response = await get(headers);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toContain('error="invalid_dpop_proof"');
    }
    const once = await dpopHeaders(key, value);
    expect((await get(once)).statusCode).toBe(200);
    const replay = await get(once);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof was already used' });
  });

  // An EC jwk without its point: Web Crypto throws a DataError, which jose passes on. Before, the guard let it through
  // as an exception, and the API answered 500 to a request whose own header was at fault.
  it('a proof whose jwk is no usable public key: 401 invalid_dpop_proof, not a server error', async () => {
    const { x: _x, y: _y, ...pointless } = key.jwk;
    const value = token(key.jkt);
    const headers = await dpopHeaders({ ...key, jwk: pointless }, value);
    const response = await get(headers);
    expect(response.statusCode, response.body).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof is invalid' });
  });

  it('the query of the request is not part of htu', async () => {
    const value = token(key.jkt);
    expect((await get(await dpopHeaders(key, value, 'GET', `${ORIGIN}/notes`), app, '/notes?page=2')).statusCode).toBe(200);
  });

  it('a valid proof without the route scope: 403 insufficient_scope on the DPoP challenge', async () => {
    const value = token(key.jkt);
    const response = await app.inject({
      method: 'POST',
      url: '/notes',
      headers: { host: 'api.test', ...(await dpopHeaders(key, value, 'POST')) },
    });
    expect(response.statusCode).toBe(403);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="notes", DPoP realm="notes", error="insufficient_scope", error_description="Access to this resource requires scope _write_.", scope="write", algs="${ALGS}"`,
    );
  });

  it('dpop.required: a Bearer token gets a DPoP challenge only; the metadata says dpop_bound_access_tokens_required', async () => {
    const strict = await api({ required: true, algorithms: ['ES256'] }, { resource: 'http://localhost/notes', scopesSupported: ['read'] });
    const response = await get({ authorization: `Bearer ${token(null)}` }, strict);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      'DPoP realm="notes", error="invalid_token", error_description="This resource requires a DPoP-bound access token", scope="read", resource_metadata="http://localhost/.well-known/oauth-protected-resource/notes", algs="ES256"',
    );
    const metadata = await strict.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/notes' });
    expect(metadata.json()).toMatchObject({ dpop_signing_alg_values_supported: ['ES256'], dpop_bound_access_tokens_required: true });
    const value = token(key.jkt);
    expect((await get(await dpopHeaders(key, value), strict)).statusCode).toBe(200);
    await strict.close();
  });

  it('dpop.required with announce false: a request without a token gets the DPoP challenge alone, never Bearer (refused here)', async () => {
    const quiet = await api({ required: true, announce: false, algorithms: ['ES256'] });
    const response = await get({}, quiet);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('DPoP realm="notes", algs="ES256"');
    await quiet.close();
  });

  it('with a resource: both challenges keep resource_metadata (RFC 9728), and the metadata lists the proof algorithms', async () => {
    const withResource = await api({}, { resource: 'http://localhost/notes' });
    const response = await get({}, withResource);
    const metadataUrl = 'resource_metadata="http://localhost/.well-known/oauth-protected-resource/notes"';
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="notes", scope="read", ${metadataUrl}, DPoP realm="notes", scope="read", ${metadataUrl}, algs="${ALGS}"`,
    );
    // A 403 too: the challenge without the error keeps the route's scope beside resource_metadata.
    const value = token(key.jkt);
    const forbidden = await withResource.inject({
      method: 'POST',
      url: '/notes',
      headers: { host: 'api.test', ...(await dpopHeaders(key, value, 'POST')) },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['www-authenticate']).toBe(
      `Bearer realm="notes", scope="write", ${metadataUrl}, DPoP realm="notes", error="insufficient_scope", error_description="Access to this resource requires scope _write_.", scope="write", ${metadataUrl}, algs="${ALGS}"`,
    );
    const metadata = (await withResource.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/notes' })).json();
    expect(metadata.dpop_signing_alg_values_supported).toEqual(['ES256', 'ES384', 'EdDSA', 'Ed25519', 'RS256', 'PS256']);
    expect(metadata).not.toHaveProperty('dpop_bound_access_tokens_required');
    await withResource.close();
  });

  it('nonces (section 9): use_dpop_nonce with a DPoP-Nonce header, and the nonce of one instance works at another', async () => {
    const nonce = { required: true, secret: NONCE_SECRET };
    const first = await api({ nonce });
    const second = await api({ nonce });
    const value = token(key.jkt);
    const refused = await get(await dpopHeaders(key, value), first);
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toContain(
      'DPoP realm="notes", error="use_dpop_nonce", error_description="The resource requires a DPoP nonce"',
    );
    const issued = refused.headers['dpop-nonce'];
    expect(typeof issued).toBe('string');
    expect((await get(await dpopHeaders(key, value, 'GET', `${ORIGIN}/notes`, { nonce: issued }), first)).statusCode).toBe(200);
    expect((await get(await dpopHeaders(key, value, 'GET', `${ORIGIN}/notes`, { nonce: issued }), second)).statusCode).toBe(200);
    const forged = await get(await dpopHeaders(key, value, 'GET', `${ORIGIN}/notes`, { nonce: `${issued}x` }), second);
    expect(forged.statusCode).toBe(401);
    expect(forged.headers['www-authenticate']).toContain('error="use_dpop_nonce"');
    expect(forged.headers['dpop-nonce']).toMatch(/^\d+\.[\w-]+$/);
    await Promise.all([first.close(), second.close()]);
  });

  it("nonces: a proof with the previous period's nonce passes, and the response hands out the current one", async () => {
    let offsetMs = 0;
    const clocked = await api({ nonce: { required: true, secret: NONCE_SECRET, rotateSeconds: 60 } }, { now: () => Date.now() + offsetMs });
    const value = token(key.jkt);
    const issued = (await get(await dpopHeaders(key, value), clocked)).headers['dpop-nonce'] as string;
    offsetMs = 60_000;
    const iat = Math.floor((Date.now() + offsetMs) / 1000);
    const response = await get(await dpopHeaders(key, value, 'GET', `${ORIGIN}/notes`, { nonce: issued, iat }), clocked);
    expect(response.statusCode).toBe(200);
    expect(response.headers['dpop-nonce']).toMatch(/^\d+\./);
    expect(response.headers['dpop-nonce']).not.toBe(issued);
    await clocked.close();
  });

  it('behind a proxy: htu is checked against dpop.publicUrl, or the forwarded protocol and host with trustProxy', async () => {
    const value = token(key.jkt);
    const proxied = await api({ publicUrl: 'https://notes.example.com/api' });
    const headers = await dpopHeaders(key, value, 'GET', 'https://notes.example.com/api/notes');
    expect((await proxied.inject({ method: 'GET', url: '/notes', headers: { host: '10.0.0.5:3000', ...headers } })).statusCode).toBe(200);
    const direct = await proxied.inject({
      method: 'GET',
      url: '/notes',
      headers: { host: '10.0.0.5:3000', ...(await dpopHeaders(key, value, 'GET', 'http://10.0.0.5:3000/notes')) },
    });
    expect(direct.statusCode).toBe(401);
    await proxied.close();

    const trusting = await api({}, {}, { trustProxy: true });
    const forwarded = { host: '10.0.0.5:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'notes.example.com' };
    const viaProxy = await trusting.inject({
      method: 'GET',
      url: '/notes',
      headers: { ...forwarded, ...(await dpopHeaders(key, value, 'GET', 'https://notes.example.com/notes')) },
    });
    expect(viaProxy.statusCode).toBe(200);
    await trusting.close();
  });
});
