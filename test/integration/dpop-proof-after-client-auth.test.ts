import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, createCode, createUser, type TestClient } from '../helpers/factories.js';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { basic, tokenRequest, type Headers, type Params } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 9449 section 11.1 records each proof (oauth_dpop_proofs) to refuse its replay. The record is written only
// once the grant knows its client: a self-signed proof with no or wrong credentials makes the server write nothing.

describe(`POST /oauth/token records a DPoP proof only after client authentication (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let user: Awaited<ReturnType<typeof createUser>>;
  let key: DpopKey;
  let htu: string;
  beforeAll(async () => {
    server = await buildTestServer({ config: { grantFlows: ['authorization_code', 'client_credentials', 'password', 'refresh_token'] } });
    client = await createClient(server.deps);
    user = await createUser(server.deps);
    key = await dpopKey();
    htu = `${server.config.baseUrl.replace(/\/+$/, '')}/oauth/token`;
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    await server.testDatabase.database.sql.query('DELETE FROM oauth_dpop_proofs', []);
  });

  const storedProofs = async () =>
    Number(
      (await server.testDatabase.database.sql.query<{ count: number | string }>('SELECT count(*) AS count FROM oauth_dpop_proofs', []))[0]!
        .count,
    );
  const withProof = async (params: Params, headers: Headers = {}) =>
    tokenRequest(server.app, params, { ...headers, dpop: await dpopProof(key, { htu }) });
  const wrongSecret = () => basic(client.uid, 'not-the-secret');

  it('grant_type=client_credentials with a valid proof and a wrong secret: 401 invalid_client, no proof stored', async () => {
    const response = await withProof({ grant_type: 'client_credentials' }, wrongSecret());
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
    expect(await storedProofs()).toBe(0);
  });

  it('grant_type=client_credentials with a valid proof and an unknown client or no credentials at all: nothing stored', async () => {
    expect((await withProof({ grant_type: 'client_credentials' }, basic('nobody', 'secret'))).json().error).toBe('invalid_client');
    expect((await withProof({ grant_type: 'client_credentials' })).json().error).toBe('invalid_client');
    expect(await storedProofs()).toBe(0);
  });

  it('grant_type=authorization_code and password with a valid proof and a wrong secret: invalid_client, nothing stored', async () => {
    const { code, redirectUri } = await createCode(server.deps, { application: client.application, resourceOwnerId: user.id });
    const exchange = await withProof({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }, wrongSecret());
    expect(exchange.json().error).toBe('invalid_client');
    const password = await withProof({ grant_type: 'password', username: user.username, password: user.password }, wrongSecret());
    expect(password.json().error).toBe('invalid_client');
    expect(await storedProofs()).toBe(0);
  });

  it('grant_type=refresh_token with a valid proof and an unknown refresh token: invalid_grant, nothing stored', async () => {
    const response = await withProof({ grant_type: 'refresh_token', refresh_token: 'unknown' }, basic(client.uid, client.secret!));
    expect(response.json().error).toBe('invalid_grant');
    expect(await storedProofs()).toBe(0);
  });

  it('with the right credentials the proof is stored once and its replay is refused', async () => {
    const proof = await dpopProof(key, { htu });
    const headers = { ...basic(client.uid, client.secret!), dpop: proof };
    const first = await tokenRequest(server.app, { grant_type: 'client_credentials' }, headers);
    expect(first.json().token_type).toBe('DPoP');
    expect(await storedProofs()).toBe(1);
    const replay = await tokenRequest(server.app, { grant_type: 'client_credentials' }, headers);
    expect(replay.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof was used already.' });
    // A replayed proof with wrong credentials is refused for the credentials first (no write to learn from).
    const replayWrong = await tokenRequest(server.app, { grant_type: 'client_credentials' }, { ...wrongSecret(), dpop: proof });
    expect(replayWrong.json().error).toBe('invalid_client');
  });

  it('an invalid proof is still refused before the client is authenticated (invalid_dpop_proof)', async () => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, { ...wrongSecret(), dpop: 'not-a-jwt' });
    expect(response.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof is not a JWT.' });
  });
});
