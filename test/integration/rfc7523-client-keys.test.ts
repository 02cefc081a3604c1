import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionParams, clientAssertion, clientKey, jwksOf, privateKeyJwtClient, type ClientKey } from '../helpers/client-assertions.js';
import { CALLBACK, documentServer, documentSettings, json, type DocumentServer } from '../helpers/client-metadata-document-server.js';
import { introspectRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { approveApplication } from '../../src/oauth/clients/applications.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 34 item 1: where a private_key_jwt client's keys come from. jwks_uri is fetched under the metadata-document
// fetcher's rules, kept for a while, and fetched again once for a key id it lacks (a rotation), not for every
// made-up one. RFC 7591 registration and Client ID Metadata Documents take jwks or jwks_uri.

describe(`private_key_jwt keys: jwks_uri, registration and metadata documents (${backend})`, () => {
  let server: TestServer;
  let documents: DocumentServer;
  let issuer: string;
  beforeAll(async () => {
    documents = await documentServer();
    server = await buildTestServer({
      config: {
        grantFlows: ['authorization_code', 'client_credentials'],
        registration: { policy: 'open', perAddressPerMinute: 0, clientIdMetadataDocuments: documentSettings() },
      },
    });
    issuer = server.config.baseUrl.replace(/\/+$/, '');
  });
  afterAll(async () => {
    await server.close();
    await documents.close();
  });

  const withAssertion = (assertion: string) =>
    tokenRequest(server.app, { grant_type: 'client_credentials', ...assertionParams(assertion) });
  const fetchesOf = (path: string) => documents.requests.filter((request) => request === path).length;
  const serveKeys = (path: string, ...keys: ClientKey[]) =>
    documents.serve(path, json(jwksOf(...keys), { 'content-type': 'application/jwk-set+json' }));

  it('jwks_uri: fetched once and kept; a rotated key is fetched again once; a made-up kid right after is not', async () => {
    const [first, rotated] = [await clientKey('ES256'), await clientKey('ES256')];
    serveKeys('/rotating.jwks', first);
    const client = await privateKeyJwtClient(server.deps, { jwksUri: `${documents.origin}/rotating.jwks` });
    expect((await withAssertion(await clientAssertion(client.uid, first, issuer))).statusCode).toBe(200);
    expect((await withAssertion(await clientAssertion(client.uid, first, issuer))).statusCode).toBe(200);
    expect(fetchesOf('/rotating.jwks')).toBe(1);

    serveKeys('/rotating.jwks', rotated);
    server.clock.advance(31);
    expect((await withAssertion(await clientAssertion(client.uid, rotated, issuer))).statusCode).toBe(200);
    expect(fetchesOf('/rotating.jwks')).toBe(2);
    const madeUp = await withAssertion(await clientAssertion(client.uid, rotated, issuer, { kid: 'made-up' }));
    expect(madeUp.statusCode).toBe(401);
    expect(fetchesOf('/rotating.jwks')).toBe(2);
  });

  it('jwks_uri that cannot be fetched or serves no usable set: invalid_client saying so, and no second fetch at once', async () => {
    documents.serve('/private.jwks', json({ keys: [{ ...(await clientKey('ES256')).publicJwk, d: 'secret-part' }] }));
    for (const path of ['/missing.jwks', '/private.jwks']) {
      const key = await clientKey('ES256');
      const client = await privateKeyJwtClient(server.deps, { jwksUri: `${documents.origin}${path}` });
      const response = await withAssertion(await clientAssertion(client.uid, key, issuer));
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('invalid_client');
      expect(response.json().error_description).toMatch(
        /^The client's jwks_uri (could not be fetched: the URL answered status 404|does not serve a usable key set: jwks must hold public keys only)/,
      );
      expect((await withAssertion(await clientAssertion(client.uid, key, issuer))).statusCode).toBe(401);
      expect(fetchesOf(path)).toBe(1);
    }
  });

  // jose refuses such keys when it verifies (a TypeError or WebCrypto's DOMException, once a 500): they are refused
  // where they are set, and a set that got in before (an older version stored it) is the client's invalid_client.
  const weakRsaKey = (kid: string) => ({ ...generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }), kid });
  const offCurveKey = async () => {
    const { publicJwk } = await clientKey('ES256');
    return { ...publicJwk, x: publicJwk.x!.startsWith('A') ? `B${publicJwk.x!.slice(1)}` : `A${publicJwk.x!.slice(1)}` };
  };

  it('keys jose cannot verify with (RSA under 2048 bits, an EC point off its curve): refused where set, invalid_client where stored', async () => {
    const register = (jwks: object) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth/register',
        payload: { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'private_key_jwt', jwks },
      });
    const good = await clientKey('ES256');
    const cases: [object, string][] = [
      [
        { keys: [good.publicJwk, weakRsaKey('weak')] },
        'The jwks key 2 is an RSA key of 1024 bits: at least 2048 are needed (RFC 7518 section 3.3).',
      ],
      [{ keys: [await offCurveKey()] }, 'The jwks key 1 is not a valid EC public key (its curve, coordinates, modulus or exponent).'],
      [
        { keys: [{ kty: 'RSA', n: 'AQAB', e: 'AQAB' }] },
        'The jwks key 1 is an RSA key of 17 bits: at least 2048 are needed (RFC 7518 section 3.3).',
      ],
    ];
    for (const [jwks, description] of cases)
      expect((await register(jwks)).json()).toEqual({ error: 'invalid_client_metadata', error_description: description });

    const signer = await clientKey('RS256');
    documents.serve('/weak.jwks', json({ keys: [weakRsaKey(signer.kid)] }));
    const fetched = await privateKeyJwtClient(server.deps, { jwksUri: `${documents.origin}/weak.jwks` });
    const refused = await withAssertion(await clientAssertion(fetched.uid, signer, issuer));
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 401,
      body: {
        error: 'invalid_client',
        error_description:
          "The client's jwks_uri does not serve a usable key set: jwks key 1 is an RSA key of 1024 bits: at least 2048 are needed (RFC 7518 section 3.3).",
      },
    });
    const stored = await privateKeyJwtClient(server.deps, { jwks: jwksOf(signer) });
    for (const jwks of [{ keys: [weakRsaKey(signer.kid)] }, { keys: [{ ...(await offCurveKey()), kid: signer.kid }] }]) {
      await server.deps.stores.applicationAdmin.update(stored.application.id, { jwks: JSON.stringify(jwks) });
      const response = await withAssertion(await clientAssertion(stored.uid, signer, issuer));
      expect(response.statusCode).toBe(401);
      expect(response.json().error_description).toMatch(/^The client's registered jwks cannot be used: jwks key 1 is /);
    }
  });

  it('a set with no key that can verify a signature here is refused where set; one beside an encryption key is taken', async () => {
    const register = (keys: object[]) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth/register',
        payload: { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys } },
      });
    const rsa = (await clientKey('RS256')).publicJwk;
    const x25519 = generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
    const none =
      "The jwks holds no key that can verify the client's signatures (RSA for RS256 or PS256, EC P-256 for ES256, OKP Ed25519 for EdDSA or Ed25519, with use sig and key_ops verify if given): key 1";
    const cases: [object, string][] = [
      [{ ...rsa, use: 'enc' }, `${none} is for use "enc", not sig.`],
      [{ ...rsa, key_ops: ['encrypt'] }, `${none} has key_ops without verify.`],
      [{ ...rsa, key_ops: 5 }, `${none} has key_ops without verify.`],
      [{ ...rsa, alg: 'HS256' }, `${none} has alg "HS256", not RS256 or PS256.`],
      [x25519, `${none} is on curve "X25519", not Ed25519.`],
      [p384, `${none} is on curve "P-384", not P-256.`],
    ];
    for (const [key, description] of cases)
      expect((await register([key])).json()).toEqual({ error: 'invalid_client_metadata', error_description: description });
    // Real sets carry encryption keys too (OpenID Connect Registration's jwks): they are passed over, not refused.
    const signer = await clientKey('ES256');
    const registered = await register([{ ...rsa, use: 'enc' }, x25519, signer.publicJwk]);
    expect(registered.statusCode, registered.body).toBe(201);
    const response = await withAssertion(await clientAssertion(registered.json().client_id, signer, issuer));
    expect(response.statusCode, response.body).not.toBe(401);
  });

  it('RFC 7591: a private_key_jwt registration with jwks gets no secret and authenticates with its key', async () => {
    const key = await clientKey('EdDSA');
    const register = (payload: object) => server.app.inject({ method: 'POST', url: '/oauth/register', payload });
    const refused = await register({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'private_key_jwt' });
    expect(refused.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'The private_key_jwt method needs the public keys: jwks or jwks_uri.',
    });
    const withPrivate = await register({
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ ...key.publicJwk, d: 'x' }] },
    });
    expect(withPrivate.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'The jwks must hold public keys only (a private key was sent).',
    });
    const response = await register({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'private_key_jwt', jwks: jwksOf(key) });
    expect(response.statusCode).toBe(201);
    const registered = response.json();
    expect(registered).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks: jwksOf(key) });
    expect(registered.client_secret).toBeUndefined();
    const assertion = await clientAssertion(registered.client_id, key, issuer, { aud: `${issuer}/oauth/introspect` });
    const introspection = await introspectRequest(server.app, { token: 'unknown', ...assertionParams(assertion) });
    expect({ status: introspection.statusCode, body: introspection.json() }).toEqual({ status: 200, body: { active: false } });
  });

  it('RFC 7592: an update keeping the keys keeps the approval; new keys withdraw it (they are a new way in)', async () => {
    const register = (payload: object) => server.app.inject({ method: 'POST', url: '/oauth/register', payload });
    const metadata = { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://rp.example/a.jwks' };
    const client = (await register(metadata)).json();
    const application = (await server.deps.stores.applications.findByUid(client.client_id))!;
    await approveApplication(server.deps, application.id);
    let token = client.registration_access_token as string;
    const put = async (payload: object) => {
      const response = await server.app.inject({
        method: 'PUT',
        url: `/oauth/register/${client.client_id}`,
        headers: { authorization: `Bearer ${token}` },
        payload: { client_id: client.client_id, ...payload },
      });
      expect(response.statusCode).toBe(200);
      token = response.json().registration_access_token;
      return (await server.deps.stores.applications.findById(application.id))!;
    };
    expect((await put({ ...metadata, client_uri: 'https://rp.example/' })).approvedAt).not.toBeNull();
    const rekeyed = await put({ ...metadata, jwks_uri: 'https://rp.example/b.jwks' });
    expect(rekeyed).toMatchObject({ jwksUri: 'https://rp.example/b.jwks', approvedAt: null });
  });

  it('a Client ID Metadata Document with private_key_jwt and jwks_uri: the URL client authenticates with its key', async () => {
    const key = await clientKey('ES256');
    serveKeys('/document-client.jwks', key);
    const clientId = `${documents.origin}/document-client.json`;
    documents.serve(
      '/document-client.json',
      json({
        client_id: clientId,
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: `${documents.origin}/document-client.jwks`,
      }),
    );
    const assertion = await clientAssertion(clientId, key, issuer);
    const introspection = await introspectRequest(server.app, { token: 'unknown', ...assertionParams(assertion) });
    expect({ status: introspection.statusCode, body: introspection.json() }).toEqual({ status: 200, body: { active: false } });
    expect(await server.deps.stores.applications.findByUid(clientId)).toMatchObject({
      confidential: true,
      secret: null,
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwksUri: `${documents.origin}/document-client.jwks`,
    });
  });
});
