import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/types.js';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, bearer, introspectRequest, tokenInfoRequest, tokenRequest, type Params } from '../helpers/oauth-requests.js';
import { openIdServer } from '../helpers/openid.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 29 items 2 and 7: a DPoP-bound access token is no bearer credential anywhere (RFC 9449 section 7.2), and the
// replay table records a proof only for a request that is answered (section 11.1), on two instances of one database.

const BOUND_AS_BEARER = 'The access token is bound to a key and must be sent with the DPoP scheme and a proof';
const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

describe(`DPoP-bound tokens and the DPoP proof table (${backend})`, () => {
  let db: TestDatabase;
  let one: TestServer;
  let two: TestServer;
  let confidential: TestClient;
  let publicClient: TestClient;
  let key: DpopKey;

  beforeAll(async () => {
    db = await createTestDatabase();
    // Two instances on one database, sharing the key that encrypts the signing keys.
    const env = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    const config: ConfigInput = {
      grantFlows: ['authorization_code', 'client_credentials', 'password', 'refresh_token'],
      rateLimit: { enabled: false },
    };
    one = await openIdServer({ testDatabase: db, env, config });
    two = await openIdServer({ testDatabase: db, env, config });
    confidential = await createClient(one.deps, { scopes: 'read openid' });
    publicClient = await createClient(one.deps, { confidential: false });
    key = await dpopKey();
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await db.drop();
  });

  const url = (server: TestServer, path: string) => `${server.config.baseUrl.replace(/\/+$/, '')}${path}`;
  const count = async (table: 'oauth_dpop_proofs' | 'oauth_access_tokens') =>
    Number((await db.database.sql.query<{ count: number | string }>(`SELECT count(*) AS count FROM ${table}`, []))[0]!.count);
  const withProof = async (server: TestServer, params: Params, headers: Record<string, string> = {}) =>
    tokenRequest(server.app, params, { ...headers, dpop: await dpopProof(key, { htu: url(server, '/oauth/token') }) });
  const boundToken = async () => {
    const response = await withProof(
      one,
      { grant_type: 'client_credentials', scope: 'read' },
      basic(confidential.uid, confidential.secret!),
    );
    expect(response.json().token_type).toBe('DPoP');
    return response.json().access_token as string;
  };
  const bearerToken = async () =>
    (await tokenRequest(one.app, { grant_type: 'client_credentials', scope: 'read' }, basic(confidential.uid, confidential.secret!))).json()
      .access_token as string;

  it('issue 29 item 2 (RFC 9449 section 7.2): a DPoP-bound access token is no Bearer credential at POST /oauth/introspect, as at token info', async () => {
    const bound = await boundToken();
    const other = await bearerToken();
    // The client's unbound token may introspect its own tokens (sameApplication): the refusal is the binding's.
    expect((await introspectRequest(one.app, { token: other }, bearer(await bearerToken()))).json()).toMatchObject({ active: true });

    const refused = await introspectRequest(one.app, { token: other }, bearer(bound));
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ error: 'invalid_token', error_description: BOUND_AS_BEARER });
    // Token info says the same of the same token.
    const info = await tokenInfoRequest(one.app, bearer(bound));
    expect(info.statusCode).toBe(401);
    expect(info.json().error_description).toBe(refused.json().error_description);
    // Introspected by its client (HTTP Basic), the bound token is active, with its key.
    const introspected = await introspectRequest(one.app, { token: bound }, basic(confidential.uid, confidential.secret!));
    expect(introspected.json()).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });

  it('issue 29 item 2 (RFC 9449 section 7.2): UserInfo refuses a bound token sent as Bearer with the same text', async () => {
    const user = await createUser(one.deps);
    const { accessToken } = await issueToken(one.deps, {
      application: confidential.application,
      resourceOwnerId: user.id,
      scopes: ['openid'],
      grantType: 'authorization_code',
      dpopJkt: key.jkt,
    });
    const userinfo = await one.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: bearer(accessToken) });
    expect(userinfo.statusCode).toBe(401);
    expect(userinfo.json()).toEqual({ error: 'invalid_token', error_description: BOUND_AS_BEARER });
  });

  it('issue 29 item 7 (RFC 9449 section 11.1): 10 refused token requests of each kind with valid proofs record no proof', async () => {
    const user = await createUser(one.deps);
    const before = await count('oauth_dpop_proofs');
    const kinds: Array<{ params: Params; error: string }> = [
      // A bogus code, from a public client that names itself (with a verifier, so the code is what is wrong).
      {
        params: {
          grant_type: 'authorization_code',
          client_id: publicClient.uid,
          code: 'bogus',
          redirect_uri: publicClient.application.redirectUris[0]!,
          code_verifier: 'v'.repeat(43),
        },
        error: 'invalid_grant',
      },
      // A grant the client may not use: client_credentials for a public client.
      { params: { grant_type: 'client_credentials', client_id: publicClient.uid }, error: 'unauthorized_client' },
      // An unknown user, and a known user's wrong password, at the password grant.
      { params: { grant_type: 'password', client_id: publicClient.uid, username: 'nobody', password: 'x' }, error: 'invalid_grant' },
      {
        params: { grant_type: 'password', client_id: publicClient.uid, username: user.username, password: 'wrong' },
        error: 'invalid_grant',
      },
      // A bogus refresh token.
      { params: { grant_type: 'refresh_token', client_id: publicClient.uid, refresh_token: 'bogus' }, error: 'invalid_grant' },
    ];
    for (const { params, error } of kinds) {
      for (let i = 0; i < 10; i += 1) {
        const response = await withProof(one, params);
        expect(response.json().error, JSON.stringify(params)).toBe(error);
      }
    }
    expect(await count('oauth_dpop_proofs')).toBe(before);
  });

  it('issue 29 item 7 (RFC 9449 section 11.1): refused UserInfo requests with valid proofs record no proof', async () => {
    const before = await count('oauth_dpop_proofs');
    const userinfo = url(one, '/oauth/userinfo');
    for (let i = 0; i < 10; i += 1) {
      const token = randomBytes(32).toString('base64url');
      const proof = await dpopProof(key, { htm: 'GET', htu: userinfo, ath: ath(token) });
      const response = await one.app.inject({
        method: 'GET',
        url: '/oauth/userinfo',
        headers: { authorization: `DPoP ${token}`, dpop: proof },
      });
      expect(response.json().error).toBe('invalid_token');
    }
    expect(await count('oauth_dpop_proofs')).toBe(before);
  });

  it('issue 29 item 7 (RFC 9449 section 11.1): an accepted request records its proof once, and its replay is refused on another instance', async () => {
    const proofs = await count('oauth_dpop_proofs');
    const proof = await dpopProof(key, { htu: url(one, '/oauth/token') });
    const headers = { ...basic(confidential.uid, confidential.secret!), dpop: proof };
    const accepted = await tokenRequest(one.app, { grant_type: 'client_credentials', scope: 'read' }, headers);
    expect(accepted.statusCode).toBe(200);
    expect(await count('oauth_dpop_proofs')).toBe(proofs + 1);
    const tokens = await count('oauth_access_tokens');
    // Same baseUrl on both instances: the proof's htu is good for either.
    const replay = await tokenRequest(two.app, { grant_type: 'client_credentials', scope: 'read' }, headers);
    expect(replay.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof was used already.' });
    // Section 4.3: the replay is refused before the rest of the request is judged (a bogus code too).
    const bogus = await tokenRequest(two.app, { grant_type: 'authorization_code', code: 'bogus', redirect_uri: 'https://x' }, headers);
    expect(bogus.json().error).toBe('invalid_dpop_proof');
    expect(await count('oauth_access_tokens')).toBe(tokens);
    expect(await count('oauth_dpop_proofs')).toBe(proofs + 1);
  });

  it('issue 29 item 7 (RFC 9449 section 11.1): one proof sent to both instances at once issues one token', async () => {
    const tokens = await count('oauth_access_tokens');
    const proof = await dpopProof(key, { htu: url(one, '/oauth/token') });
    const headers = { ...basic(confidential.uid, confidential.secret!), dpop: proof };
    const responses = await Promise.all(
      [one, two, one, two].map((server) => tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read' }, headers)),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 400, 400, 400]);
    expect(await count('oauth_access_tokens')).toBe(tokens + 1);
  });
});
