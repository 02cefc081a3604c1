import { createHash } from 'node:crypto';
import { exportJWK, generateSecret, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedForm } from '../../src/oauth/secrets.js';
import { describeAccessToken } from '../../src/oauth/tokens/token-info.js';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { basic, introspectRequest, tokenInfoRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 9449 at the token endpoint: section 4.3's checks of a proof, section 5's binding (token_type DPoP, cnf.jkt
// at introspection and token info, section 6.2), 5.2's dpop_bound_access_tokens, 8's nonces and 11.1's replay
// protection, on two instances of one database.

describe(`DPoP at the token endpoint, RFC 9449 (${backend})`, () => {
  let db: TestDatabase;
  let one: TestServer;
  let two: TestServer;
  let client: TestClient;
  let key: DpopKey;
  let htu: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    one = await buildTestServer({ testDatabase: db });
    two = await buildTestServer({ testDatabase: db });
    client = await createClient(one.deps);
    key = await dpopKey();
    htu = `${one.config.baseUrl.replace(/\/+$/, '')}/oauth/token`;
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await db.drop();
  });

  const request = (server: TestServer, proof?: string | string[]) =>
    tokenRequest(
      server.app,
      { grant_type: 'client_credentials' },
      { ...basic(client.uid, client.secret!), ...(proof !== undefined && { dpop: proof as string }) },
    );
  const refused = async (proof: string, description: string, server = one) => {
    const response = await request(server, proof);
    expect({ status: response.statusCode, body: response.json() }, description).toEqual({
      status: 400,
      body: { error: 'invalid_dpop_proof', error_description: description },
    });
  };

  it('sections 5 and 6.2: a valid proof binds the token: token_type DPoP, cnf.jkt at introspection and token info', async () => {
    const response = await request(one, await dpopProof(key, { htu }));
    expect(response.statusCode).toBe(200);
    expect(response.json().token_type).toBe('DPoP');
    const token = response.json().access_token;
    const introspection = (await introspectRequest(one.app, { token }, basic(client.uid, client.secret!))).json();
    expect(introspection).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
    const record = await one.deps.stores.accessTokens.findByToken(storedForm(token, one.config.hashTokens));
    expect((await describeAccessToken(one.deps, record!)).cnf).toEqual({ jkt: key.jkt });
    // Section 7.2: token info is a protected resource, and a bound token sent as a bearer token is refused there.
    const asBearer = await tokenInfoRequest(one.app, { authorization: `Bearer ${token}` });
    expect(asBearer.statusCode).toBe(401);
    // Section 7: with the DPoP scheme and a proof of the key for this URL and token, token info answers cnf.
    const ath = createHash('sha256').update(token).digest('base64url');
    const infoProof = await dpopProof(key, { htm: 'GET', htu: `${htu}/info`, ath });
    const info = await tokenInfoRequest(one.app, { authorization: `DPoP ${token}`, dpop: infoProof });
    expect(info.statusCode, info.body).toBe(200);
    expect(info.json().cnf).toEqual({ jkt: key.jkt });
  });

  it('without a proof nothing changes: a Bearer token without cnf', async () => {
    const response = await request(one);
    expect(response.json().token_type).toBe('Bearer');
    const introspection = (
      await introspectRequest(one.app, { token: response.json().access_token }, basic(client.uid, client.secret!))
    ).json();
    expect(introspection.token_type).toBe('Bearer');
    expect(introspection).not.toHaveProperty('cnf');
  });

  it('section 4.3: a proof for another method or URL is refused; query and fragment of htu are ignored', async () => {
    await refused(await dpopProof(key, { htu, htm: 'GET' }), 'The DPoP proof is for another HTTP method.');
    await refused(await dpopProof(key, { htu: `${htu}/other` }), 'The DPoP proof is for another URL.');
    await refused(await dpopProof(key, { htu: 'https://elsewhere.example.com/oauth/token' }), 'The DPoP proof is for another URL.');
    expect((await request(one, await dpopProof(key, { htu: `${htu}?x=1#y` }))).statusCode).toBe(200);
    // RFC 3986 6.2.2 normalization: an unreserved character percent-encoded is the same URL; a reserved one is not.
    expect((await request(one, await dpopProof(key, { htu: htu.replace(/token$/, '%74oken') }))).statusCode).toBe(200);
    await refused(await dpopProof(key, { htu: htu.replace(/\/token$/, '%2Ftoken') }), 'The DPoP proof is for another URL.');
  });

  it('section 4.3: an expired, future or missing iat is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refused(await dpopProof(key, { htu, iat: null }), 'The DPoP proof needs an iat (a number of seconds).');
    await refused(await dpopProof(key, { htu, iat: now - 301 }), 'The DPoP proof is too old or from the future (iat).');
    await refused(await dpopProof(key, { htu, iat: now + 60 }), 'The DPoP proof is too old or from the future (iat).');
    await refused(await dpopProof(key, { htu, iat: now + 15 }), 'The DPoP proof is too old or from the future (iat).');
  });

  it('a client clock 9 s ahead is accepted (dpop.clockToleranceSeconds 10: FAPI 2.0 Security Profile 5.3.2.1)', async () => {
    const response = await request(one, await dpopProof(key, { htu, iat: Math.floor(Date.now() / 1000) + 9 }));
    expect(response.statusCode, response.body).toBe(200);
  });

  it('section 4.3: a private key in the header, a symmetric alg, a wrong typ, a bad signature are refused', async () => {
    const { privateKey } = key;
    const privateJwk = await exportJWK(privateKey);
    await refused(await dpopProof(key, { htu, jwk: privateJwk }), 'The DPoP proof carries a private key.');
    const hs256 = await new SignJWT({ htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), jti: 'x' })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct' } })
      .sign(await generateSecret('HS256'));
    await refused(hs256, 'The DPoP proof must be signed with one of ES256, ES384, EdDSA, Ed25519, RS256, PS256.');
    await refused(await dpopProof(key, { htu, typ: 'JWT' }), 'The DPoP proof must have typ dpop+jwt.');
    const other = await dpopKey();
    await refused(await dpopProof(key, { htu, jwk: other.publicJwk }), 'The DPoP proof signature does not verify with its jwk.');
    await refused('not-a-jwt', 'The DPoP proof is not a JWT.');
    // Signed right, with an iat that is no number: its claims are wrong, not its signature.
    const textIat = await new SignJWT({ htm: 'POST', htu, iat: 'now' as unknown as number, jti: 'y' })
      .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk })
      .sign(key.privateKey);
    await refused(textIat, `The DPoP proof's claims are not valid: "iat" claim must be a number.`);
  });

  it('section 4.3 check 1: two DPoP header fields (joined by HTTP with a comma) are one proof too many; a jti is at most 256 characters', async () => {
    await refused(`${await dpopProof(key, { htu })}, ${await dpopProof(key, { htu })}`, 'Send exactly one DPoP proof.');
    await refused(await dpopProof(key, { htu, jti: 'j'.repeat(257) }), "The DPoP proof's jti is longer than 256 characters.");
    await refused(await dpopProof(key, { htu, jti: '' }), 'The DPoP proof needs a jti.');
  });

  it('section 11.1: a proof is accepted once, on any instance', async () => {
    const proof = await dpopProof(key, { htu });
    expect((await request(one, proof)).statusCode).toBe(200);
    await refused(proof, 'The DPoP proof was used already.', one);
    await refused(proof, 'The DPoP proof was used already.', two);
  });

  it('section 5.2: a client registered with dpop_bound_access_tokens gets nothing without a proof', async () => {
    const bound = await createClient(one.deps);
    await one.deps.stores.applicationAdmin.update(bound.application.id, { dpopBoundAccessTokens: true });
    const headers = basic(bound.uid, bound.secret!);
    const without = await tokenRequest(one.app, { grant_type: 'client_credentials' }, headers);
    expect(without.json()).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'This client must send a DPoP proof: its access tokens are DPoP-bound.',
    });
    const withProof = await tokenRequest(
      one.app,
      { grant_type: 'client_credentials' },
      { ...headers, dpop: await dpopProof(key, { htu }) },
    );
    expect(withProof.json().token_type).toBe('DPoP');
  });

  it('section 5.1: the metadata names the proof algorithms', async () => {
    const metadata = (await one.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.dpop_signing_alg_values_supported).toEqual(['ES256', 'ES384', 'EdDSA', 'Ed25519', 'RS256', 'PS256']);
  });
});

describe(`DPoP server nonces, RFC 9449 section 8 (${backend})`, () => {
  it('a proof without the nonce gets use_dpop_nonce and DPoP-Nonce; a nonce from one instance is good on the other', async () => {
    const db = await createTestDatabase();
    const config = { dpop: { nonce: { required: true, rotateSeconds: 300 } } };
    const [one, two] = [await buildTestServer({ config, testDatabase: db }), await buildTestServer({ config, testDatabase: db })];
    try {
      const client = await createClient(one.deps);
      const key = await dpopKey('EdDSA');
      const htu = `${one.config.baseUrl.replace(/\/+$/, '')}/oauth/token`;
      const send = async (server: TestServer, nonce?: string) =>
        tokenRequest(
          server.app,
          { grant_type: 'client_credentials' },
          { ...basic(client.uid, client.secret!), dpop: await dpopProof(key, { htu, nonce }) },
        );
      const first = await send(one);
      expect(first.statusCode).toBe(400);
      expect(first.json().error).toBe('use_dpop_nonce');
      const nonce = String(first.headers['dpop-nonce']);
      expect(nonce).toMatch(/^[\w-]{20,}$/);
      expect((await send(one, 'stale-or-made-up')).json().error).toBe('use_dpop_nonce');
      const second = await send(two, nonce);
      expect(second.statusCode).toBe(200);
      expect(second.json().token_type).toBe('DPoP');
    } finally {
      await one.close();
      await two.close();
      await db.drop();
    }
  });
});
