import { createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertionParams,
  clientAssertion,
  clientKey,
  jwksOf,
  privateKeyJwtClient,
  unsecuredAssertion,
  type ClientKey,
} from '../helpers/client-assertions.js';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, introspectRequest, revokeRequest, tokenRequest, type Params } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7523 section 2.2 and OpenID Connect Core 9 (issue 34 item 1): a client authenticates with a JWT signed by its
// key (private_key_jwt) or with its secret (client_secret_jwt). Every bad assertion is invalid_client (RFC 6749
// section 5.2, RFC 7521 section 4.2.1) and stores nothing: no token, and no jti unless the signature verified.

describe(`client assertions at the token, revocation and introspection endpoints (${backend})`, () => {
  let server: TestServer;
  let issuer: string;
  let es256: ClientKey;
  beforeAll(async () => {
    // client_secret_jwt needs the secrets as they are (HS256 is keyed with the secret).
    server = await buildTestServer({ config: { grantFlows: ['client_credentials'], hashApplicationSecrets: false } });
    issuer = server.config.baseUrl.replace(/\/+$/, '');
    es256 = await clientKey('ES256');
  });
  afterAll(() => server.close());

  const count = async (sql: string, values: unknown[] = []) =>
    Number((await server.testDatabase.database.sql.query<{ n: number | string }>(sql, values))[0]!.n);
  const tokensOf = (client: TestClient) =>
    count('SELECT count(*) AS n FROM oauth_access_tokens WHERE application_id = $1', [client.application.id]);
  const storedJtis = () => count('SELECT count(*) AS n FROM oauth_dpop_proofs');
  const withAssertion = (assertion: string, extra: Params = {}) =>
    tokenRequest(server.app, { grant_type: 'client_credentials', ...assertionParams(assertion), ...extra });
  const keyClient = () => privateKeyJwtClient(server.deps, { jwks: jwksOf(es256) });

  // `description`: what the client is told once its signature verified (which claim failed); none before that.
  const expectRefused = async (client: TestClient, send: () => Promise<{ statusCode: number; json(): unknown }>, description?: string) => {
    const jtis = await storedJtis();
    const response = await send();
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
    if (description !== undefined) expect((response.json() as { error_description: string }).error_description).toBe(description);
    expect(await tokensOf(client)).toBe(0);
    expect(await storedJtis()).toBe(jtis);
  };

  it.each(['RS256', 'PS256', 'ES256', 'EdDSA'])('private_key_jwt with %s: a token for the client', async (alg) => {
    const key = await clientKey(alg);
    const client = await privateKeyJwtClient(server.deps, { jwks: jwksOf(key) });
    const response = await withAssertion(await clientAssertion(client.uid, key, issuer));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ token_type: 'Bearer' });
    expect(await tokensOf(client)).toBe(1);
  });

  it('client_secret_jwt with HS256 and the secret: a token; the same client with its secret in Basic: invalid_client', async () => {
    const client = await createClient(server.deps, { tokenEndpointAuthMethod: 'client_secret_jwt' });
    expect((await withAssertion(await clientAssertion(client.uid, client.secret!, issuer))).statusCode).toBe(200);
    const direct = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!));
    expect(direct.statusCode).toBe(401);
    expect(await tokensOf(client)).toBe(1);
  });

  it('the aud may be the issuer, the token endpoint, or (at revocation) the revocation endpoint', async () => {
    const client = await keyClient();
    for (const aud of [issuer, `${issuer}/oauth/token`, [issuer, `${issuer}/oauth/token`]])
      expect((await withAssertion(await clientAssertion(client.uid, es256, issuer, { aud }))).statusCode).toBe(200);
    const token = await issueToken(server.deps, { application: client.application });
    const revoke = await revokeRequest(server.app, {
      token: token.accessToken,
      ...assertionParams(await clientAssertion(client.uid, es256, issuer, { aud: `${issuer}/oauth/revoke` })),
    });
    expect(revoke.statusCode).toBe(200);
    expect(await count('SELECT count(*) AS n FROM oauth_access_tokens WHERE id = $1 AND revoked_at IS NOT NULL', [token.record.id])).toBe(
      1,
    );
    const elsewhere = await withAssertion(await clientAssertion(client.uid, es256, issuer, { aud: `${issuer}/oauth/revoke` }));
    expect(elsewhere.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('introspection authenticates a client by its assertion', async () => {
    const client = await keyClient();
    const token = await issueToken(server.deps, { application: client.application });
    const assertion = await clientAssertion(client.uid, es256, issuer, { aud: `${issuer}/oauth/introspect` });
    const response = await introspectRequest(server.app, { token: token.accessToken, ...assertionParams(assertion) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ active: true, client_id: client.uid });
    const replayed = await introspectRequest(server.app, { token: token.accessToken, ...assertionParams(assertion) });
    expect(replayed.statusCode).toBe(401);
  });

  it('a replayed assertion (the same jti): invalid_client, no second token', async () => {
    const client = await keyClient();
    const assertion = await clientAssertion(client.uid, es256, issuer);
    expect((await withAssertion(assertion)).statusCode).toBe(200);
    const replay = await withAssertion(assertion);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ error: 'invalid_client', error_description: 'The client assertion was used already (jti).' });
    expect(await tokensOf(client)).toBe(1);
  });

  it('a jti used at one instance is refused at another on the same database', async () => {
    const other = await buildTestServer({
      testDatabase: server.testDatabase,
      config: { grantFlows: ['client_credentials'], hashApplicationSecrets: false },
    });
    try {
      const client = await keyClient();
      const assertion = await clientAssertion(client.uid, es256, issuer);
      expect((await withAssertion(assertion)).statusCode).toBe(200);
      const replay = await tokenRequest(other.app, { grant_type: 'client_credentials', ...assertionParams(assertion) });
      expect(replay.statusCode).toBe(401);
      expect(replay.json()).toMatchObject({ error: 'invalid_client' });
      expect(await tokensOf(client)).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('a wrong aud: invalid_client, and its jti stays unspent (a right assertion with it succeeds after)', async () => {
    const client = await keyClient();
    const jti = 'jti-of-a-wrong-audience';
    await expectRefused(
      client,
      async () => withAssertion(await clientAssertion(client.uid, es256, issuer, { jti, aud: 'https://other.example' })),
      'The client assertion is for another audience (aud).',
    );
    expect((await withAssertion(await clientAssertion(client.uid, es256, issuer, { jti }))).statusCode).toBe(200);
  });

  it('alg none: invalid_client', async () => {
    const client = await keyClient();
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: client.uid, sub: client.uid, aud: issuer, exp: now + 60, jti: 'none-1' };
    await expectRefused(client, () => withAssertion(unsecuredAssertion(claims)));
  });

  it('HS256 keyed with the client public key (algorithm confusion): invalid_client', async () => {
    const key = await clientKey('RS256');
    const client = await privateKeyJwtClient(server.deps, { jwks: jwksOf(key) });
    const publicPem = createPublicKey({ key: key.publicJwk as never, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    for (const secret of [publicPem, JSON.stringify(key.publicJwk)])
      await expectRefused(client, async () => withAssertion(await clientAssertion(client.uid, secret, issuer, { kid: key.kid })));
  });

  it('expired, too far ahead (more than 5 minutes), without exp or jti, or a jti that is no string: invalid_client', async () => {
    const client = await keyClient();
    const refusals = [
      [{ expiresIn: -120 }, 'The client assertion has expired (exp).'],
      [{ expiresIn: 600 }, "The client assertion's exp is more than 5 minutes ahead."],
      [{ expiresIn: null }, 'The client assertion has no exp claim.'],
      [{ jti: null }, 'The client assertion has no jti claim.'],
      [{ jti: 12345 }, "The client assertion's jti claim is not a string."],
    ] as const;
    for (const [options, description] of refusals)
      await expectRefused(client, async () => withAssertion(await clientAssertion(client.uid, es256, issuer, options)), description);
  });

  it('issued in the future beyond the 30 s of clock skew: invalid_client; within it, a token', async () => {
    const client = await keyClient();
    for (const issuedIn of [40, 3600])
      await expectRefused(
        client,
        async () => withAssertion(await clientAssertion(client.uid, es256, issuer, { issuedIn, expiresIn: 120 })),
        "The client assertion is not valid yet (iat): check the client's clock.",
      );
    expect((await withAssertion(await clientAssertion(client.uid, es256, issuer, { issuedIn: 20 }))).statusCode).toBe(200);
  });

  it('an aud array naming this server and anything else: invalid_client (it could be played at the other one too)', async () => {
    const client = await keyClient();
    const aud = [`${issuer}/oauth/token`, 'https://elsewhere.example'];
    await expectRefused(
      client,
      async () => withAssertion(await clientAssertion(client.uid, es256, issuer, { aud })),
      "The client assertion's aud names another audience besides this server.",
    );
  });

  it('iss or sub not the client id, or a client_id naming another client: invalid_client', async () => {
    const client = await keyClient();
    const other = await keyClient();
    await expectRefused(client, async () => withAssertion(await clientAssertion(client.uid, es256, issuer, { iss: other.uid })));
    await expectRefused(client, async () => withAssertion(await clientAssertion(client.uid, es256, issuer, { sub: 'someone' })));
    await expectRefused(client, async () => withAssertion(await clientAssertion(client.uid, es256, issuer), { client_id: other.uid }));
  });

  it('signed by a key the client did not register, or of another client: invalid_client', async () => {
    const client = await keyClient();
    const stranger = await clientKey('ES256', es256.kid);
    // Nothing said of its claims: whoever sent it does not hold the client's key.
    const response = await withAssertion(await clientAssertion(client.uid, stranger, issuer, { expiresIn: -120 }));
    expect(response.json()).toMatchObject({ error: 'invalid_client', error_description: expect.not.stringContaining('client assertion') });
    await expectRefused(client, async () => withAssertion(await clientAssertion(client.uid, stranger, issuer)));
  });

  it('a client registered for a secret sends an assertion, or a private_key_jwt client its secret: invalid_client', async () => {
    const secretClient = await createClient(server.deps);
    await expectRefused(secretClient, async () => withAssertion(await clientAssertion(secretClient.uid, secretClient.secret!, issuer)));
    const client = await keyClient();
    await expectRefused(client, () => tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!)));
  });

  it('a foreign assertion type is invalid_client; an assertion beside a secret is two methods: invalid_request', async () => {
    const client = await keyClient();
    const assertion = await clientAssertion(client.uid, es256, issuer);
    await expectRefused(client, () =>
      withAssertion(assertion, { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' }),
    );
    const both = await tokenRequest(
      server.app,
      { grant_type: 'client_credentials', ...assertionParams(assertion) },
      basic(client.uid, 'x'),
    );
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({ error: 'invalid_request' });
    await expectRefused(client, () => withAssertion('not.a.jwt'));
  });

  it('failed assertions count towards the lockout of the client and address, like failed secrets', async () => {
    const client = await keyClient();
    for (let attempt = 0; attempt < server.config.rateLimit.maxFailures; attempt += 1)
      expect((await withAssertion(await clientAssertion(client.uid, es256, issuer, { aud: 'https://other.example' }))).statusCode).toBe(
        401,
      );
    const locked = await withAssertion(await clientAssertion(client.uid, es256, issuer));
    expect(locked.statusCode).toBe(429);
    expect(await tokensOf(client)).toBe(0);
  });
});
