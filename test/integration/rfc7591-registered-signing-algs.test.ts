import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionParams, clientAssertion, clientKey, jwksOf, type ClientKey } from '../helpers/client-assertions.js';
import { authorizeUrl } from '../helpers/end-user.js';
import { registrationRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { printShown } from '../../src/cli/apps-output.js';
import type { CliIo } from '../../src/cli/io.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { buildAdminServer, JSON_API, ADMIN } from './applications-support.js';

// OpenID Connect Registration 1.0 section 2: a client registering by RFC 7591 may name the one algorithm of its request
// objects (request_object_signing_alg) and of its client assertions (token_endpoint_auth_signing_alg); what it signs
// with another "MUST be rejected". RFC 9449 section 5.2: dpop_bound_access_tokens is the client's to register too.

const CALLBACK = 'https://rp.example.com/cb';

describe(`RFC 7591 request_object_signing_alg, token_endpoint_auth_signing_alg, dpop_bound_access_tokens (${backend})`, () => {
  let server: TestServer;
  let issuer: string;
  let rsa: ClientKey;
  let ec: ClientKey;
  beforeAll(async () => {
    server = await buildAdminServer({ registration: { policy: 'open', perAddressPerMinute: 0 } });
    issuer = server.config.baseUrl.replace(/\/+$/, '');
    [rsa, ec] = await Promise.all([clientKey('RS256'), clientKey('ES256')]);
  });
  afterAll(() => server.close());

  const register = (metadata: object) =>
    registrationRequest(server.app, {
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: jwksOf(rsa, ec),
      ...metadata,
    });
  const requestObject = (clientId: string, key: ClientKey) => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: clientId, aud: issuer, exp: now + 300, client_id: clientId, response_type: 'code', redirect_uri: CALLBACK };
    return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
  };
  const authorize = async (clientId: string, key: ClientKey) =>
    server.app.inject({ method: 'GET', url: authorizeUrl({ client_id: clientId, request: await requestObject(clientId, key) }) });
  // A made-up code: a client that authenticates gets invalid_grant, one that does not invalid_client.
  const exchange = async (clientId: string, key: ClientKey) =>
    tokenRequest(
      server.app,
      assertionParams(await clientAssertion(clientId, key, issuer), {
        grant_type: 'authorization_code',
        code: 'made-up',
        redirect_uri: CALLBACK,
      }),
    );

  it('are stored and answered; a request object or an assertion signed with another algorithm is refused, naming it', async () => {
    const registered = await register({
      request_object_signing_alg: 'RS256',
      token_endpoint_auth_signing_alg: 'ES256',
      dpop_bound_access_tokens: true,
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const client = registered.json();
    expect(client).toMatchObject({
      request_object_signing_alg: 'RS256',
      token_endpoint_auth_signing_alg: 'ES256',
      dpop_bound_access_tokens: true,
    });
    expect(await server.deps.stores.applications.findByUid(client.client_id)).toMatchObject({ dpopBoundAccessTokens: true });

    const refusedObject = await authorize(client.client_id, ec);
    expect(refusedObject.statusCode).toBe(400);
    expect(refusedObject.body).toContain('The request object must be signed with RS256, the client&#39;s request_object_signing_alg.');
    expect((await authorize(client.client_id, rsa)).body).not.toContain('The request object');

    const refusedAssertion = await exchange(client.client_id, rsa);
    expect([refusedAssertion.statusCode, refusedAssertion.json()]).toEqual([
      401,
      {
        error: 'invalid_client',
        error_description: "The client assertion must be signed with ES256, the client's token_endpoint_auth_signing_alg.",
      },
    ]);
    expect((await exchange(client.client_id, ec)).json().error).toBe('invalid_grant');
  });

  it('an admin sees them: the admin JSON API, the application page, apps show', async () => {
    const client = (await register({ request_object_signing_alg: 'PS256', token_endpoint_auth_signing_alg: 'EdDSA' })).json();
    const record = (await server.deps.stores.applications.findByUid(client.client_id))!;
    const json = await server.app.inject({ method: 'GET', url: `/oauth/applications/${record.id}`, headers: JSON_API });
    expect(json.json()).toMatchObject({ request_object_signing_alg: 'PS256', token_endpoint_auth_signing_alg: 'EdDSA' });
    const page = await server.app.inject({ method: 'GET', url: `/oauth/applications/${record.id}`, headers: ADMIN });
    expect(page.body).toContain('<code id="request_object_signing_alg">PS256</code>');
    expect(page.body).toContain('<code id="token_endpoint_auth_signing_alg">EdDSA</code>');
    let printed = '';
    const io = { stdout: (text: string) => void (printed += text) } as CliIo;
    printShown(io, false, record, server.config);
    expect(printed).toContain('optional; signed with PS256 only (registered)\n');
    expect(printed).toMatch(/client auth: +private_key_jwt, keys stored inline; signed with EdDSA only \(registered\)\n/);

    const plain = await server.deps.stores.applications.findByUid((await register({})).json().client_id);
    const plainJson = await server.app.inject({ method: 'GET', url: `/oauth/applications/${plain!.id}`, headers: JSON_API });
    expect(plainJson.json()).toMatchObject({ request_object_signing_alg: null, token_endpoint_auth_signing_alg: null });
    const plainPage = await server.app.inject({ method: 'GET', url: `/oauth/applications/${plain!.id}`, headers: ADMIN });
    expect(plainPage.body).not.toContain('signing algorithm (registered)');
  });

  it('without them, any algorithm the server offers (the RSA and the EC key both)', async () => {
    const client = (await register({})).json();
    expect(client).not.toHaveProperty('request_object_signing_alg');
    expect(client).not.toHaveProperty('dpop_bound_access_tokens');
    for (const key of [rsa, ec]) {
      expect((await authorize(client.client_id, key)).body).not.toContain('The request object');
      expect((await exchange(client.client_id, key)).json().error).toBe('invalid_grant');
    }
  });

  it('an algorithm the server does not verify with, or none, is invalid_client_metadata; one beside a secret method is not kept', async () => {
    for (const [metadata, description] of [
      [{ request_object_signing_alg: 'none' }, 'request_object_signing_alg must be one of RS256, PS256, ES256, EdDSA, Ed25519.'],
      [{ request_object_signing_alg: 'RS384' }, 'request_object_signing_alg must be one of RS256, PS256, ES256, EdDSA, Ed25519.'],
      [
        { token_endpoint_auth_signing_alg: 'HS256' },
        'token_endpoint_auth_signing_alg must be one of RS256, PS256, ES256, EdDSA, Ed25519 for private_key_jwt.',
      ],
      [{ dpop_bound_access_tokens: 'yes' }, 'dpop_bound_access_tokens must be a boolean.'],
    ] as const) {
      const response = await register(metadata);
      expect([response.statusCode, response.json()]).toEqual([400, { error: 'invalid_client_metadata', error_description: description }]);
    }
    const secretClient = await register({
      token_endpoint_auth_method: 'client_secret_basic',
      jwks: undefined,
      token_endpoint_auth_signing_alg: 'RS256',
    });
    expect(secretClient.statusCode, secretClient.body).toBe(201);
    expect(secretClient.json()).not.toHaveProperty('token_endpoint_auth_signing_alg');
  });
});
