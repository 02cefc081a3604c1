import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCode, createUser, type TestClient } from '../helpers/factories.js';
import {
  basic,
  during,
  expectOAuthError,
  expectTokenResponse,
  type Headers,
  isActive,
  missing,
  revokeRequest,
  serverWithClient,
  TEXT,
  tokenRequest,
} from '../helpers/oauth-requests.js';
import { generateSecret, storedForm } from '../../src/oauth/secrets.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 6749 section 6 (refreshing an access token) with the rotation and reuse detection of RFC 9700
// section 4.14.2, as SPEC 3.1 and 8 define them.

type Pair = { access_token: string; refresh_token: string; scope?: string; expires_in?: number };

// One database for the file; each describe's server has its own config on it.
let base: TestServer;
let userId: number;
beforeAll(async () => {
  base = await buildTestServer({ config: { optionalScopes: ['write'] } });
  userId = (await createUser(base.deps)).id;
});
afterAll(() => base.close());

const credentialsOf = (client: TestClient): { headers: Headers; params: Record<string, string> } =>
  client.secret === null ? { headers: {}, params: { client_id: client.uid } } : { headers: basic(client.uid, client.secret), params: {} };

/** A pair as a client gets it: a code exchanged at POST /oauth/token. */
async function obtainPair(server: TestServer, client: TestClient, scopes = ['read']): Promise<Pair> {
  const verifier = 'v'.repeat(43);
  const { code, redirectUri } = await createCode(server.deps, {
    application: client.application,
    resourceOwnerId: userId,
    scopes,
    codeChallenge: client.secret === null ? verifier : null,
    codeChallengeMethod: client.secret === null ? 'plain' : null,
  });
  const { headers, params } = credentialsOf(client);
  const pkce: Record<string, string> = client.secret === null ? { code_verifier: verifier } : {};
  const response = await tokenRequest(
    server.app,
    { grant_type: 'authorization_code', code, redirect_uri: redirectUri, ...pkce, ...params },
    headers,
  );
  expect(response.statusCode).toBe(200);
  return response.json();
}

function refresh(server: TestServer, client: TestClient, refreshToken: string, extra: Record<string, string> = {}) {
  const { headers, params } = credentialsOf(client);
  return tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...params, ...extra }, headers);
}

describe(`POST /oauth/token grant_type=refresh_token (RFC 6749 section 6) on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;
  let asClient: Headers;

  beforeAll(async () => {
    // PKCE plain lets obtainPair give public clients a code without computing S256.
    ({ server, client, asClient } = await serverWithClient(base, { optionalScopes: ['write'], pkce: { methods: ['S256', 'plain'] } }));
  });
  afterAll(() => server.close());

  it('issues a new access token and a new refresh token (RFC 6749 section 6)', async () => {
    const pair = await obtainPair(server, client);
    server.clock.advance(60);
    const body = expectTokenResponse(await during(server.clock, () => refresh(server, client, pair.refresh_token)), {
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      scope: 'read',
    });
    expect(body.access_token).not.toBe(pair.access_token);
    expect(body.refresh_token).not.toBe(pair.refresh_token);
    expect(await isActive(server.app, body.access_token, asClient)).toBe(true);
  });

  it('rotation: the old refresh token and the old access token are dead after use (RFC 9700 section 4.14.2)', async () => {
    const pair = await obtainPair(server, client);
    expect((await refresh(server, client, pair.refresh_token)).statusCode).toBe(200);
    expect(await isActive(server.app, pair.access_token, asClient)).toBe(false);
    expect(await isActive(server.app, pair.refresh_token, asClient)).toBe(false);
  });

  it('reuse detection: presenting a rotated refresh token revokes the whole family (RFC 9700 section 4.14.2)', async () => {
    const pair = await obtainPair(server, client);
    const next: Pair = (await refresh(server, client, pair.refresh_token)).json();
    const reuse = await refresh(server, client, pair.refresh_token);
    expectOAuthError(reuse, 400, 'invalid_grant', TEXT.invalidGrant);
    expect(await isActive(server.app, next.access_token, asClient)).toBe(false);
    expectOAuthError(await refresh(server, client, next.refresh_token), 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('a refresh token still works after its access token expired (reference 5.7)', async () => {
    const pair = await obtainPair(server, client);
    server.clock.advance(7200);
    expect(await isActive(server.app, pair.access_token, asClient)).toBe(false);
    expect((await refresh(server, client, pair.refresh_token)).statusCode).toBe(200);
  });

  it('scope may narrow the original scopes (RFC 6749 section 6)', async () => {
    const pair = await obtainPair(server, client, ['read', 'write']);
    const response = await refresh(server, client, pair.refresh_token, { scope: 'read' });
    expect(response.json()).toMatchObject({ scope: 'read' });
  });

  it('Doorkeeper’s alias `scopes` narrows or is refused as `scope` is; `scope` wins when both are sent (reference 5.7)', async () => {
    const pair = await obtainPair(server, client, ['read', 'write']);
    const narrowed = await refresh(server, client, pair.refresh_token, { scopes: 'read' });
    expect(narrowed.json()).toMatchObject({ scope: 'read' });
    expectOAuthError(
      await refresh(server, client, narrowed.json().refresh_token, { scopes: 'admin' }),
      400,
      'invalid_scope',
      TEXT.invalidScope,
    );
    const both = await refresh(server, client, narrowed.json().refresh_token, { scope: 'read', scopes: 'admin' });
    expect(both.json()).toMatchObject({ scope: 'read' });
  });

  it.each(['read write', 'write', 'read admin'])(
    'scope=%j widening a "read" token is invalid_scope, and the token stays usable',
    async (scope) => {
      const pair = await obtainPair(server, client, ['read']);
      expectOAuthError(await refresh(server, client, pair.refresh_token, { scope }), 400, 'invalid_scope', TEXT.invalidScope);
      expect((await refresh(server, client, pair.refresh_token)).statusCode).toBe(200);
    },
  );

  it("another client's refresh token is invalid_grant, and does not rotate it (RFC 6749 section 6)", async () => {
    const pair = await obtainPair(server, client);
    const other = await createClient(server.deps);
    expectOAuthError(await refresh(server, other, pair.refresh_token), 400, 'invalid_grant', TEXT.invalidGrant);
    expect((await refresh(server, client, pair.refresh_token)).statusCode).toBe(200);
  });

  it('a confidential client without credentials: 401 invalid_client (RFC 6749 section 6, SPEC 8)', async () => {
    const pair = await obtainPair(server, client);
    const response = await tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: pair.refresh_token });
    expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('wrong credentials: 401 invalid_client', async () => {
    const pair = await obtainPair(server, client);
    const response = await tokenRequest(
      server.app,
      { grant_type: 'refresh_token', refresh_token: pair.refresh_token },
      basic(client.uid, 'wrong'),
    );
    expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
  });

  it('a public client refreshes with its client_id; without it the token is invalid_grant (reference 5.7)', async () => {
    const publicClient = await createClient(server.deps, { confidential: false });
    const pair = await obtainPair(server, publicClient);
    const anonymous = await tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: pair.refresh_token });
    expectOAuthError(anonymous, 400, 'invalid_grant', TEXT.invalidGrant);
    expect((await refresh(server, publicClient, pair.refresh_token)).statusCode).toBe(200);
  });

  it('an unknown refresh token is invalid_grant; a missing one invalid_request', async () => {
    expectOAuthError(await refresh(server, client, 'no-such-token'), 400, 'invalid_grant', TEXT.invalidGrant);
    expectOAuthError(
      await tokenRequest(server.app, { grant_type: 'refresh_token' }, asClient),
      400,
      'invalid_request',
      missing('refresh_token'),
    );
  });

  it('a refresh token revoked through RFC 7009 is invalid_grant', async () => {
    const pair = await obtainPair(server, client);
    expect((await revokeRequest(server.app, { token: pair.refresh_token }, asClient)).statusCode).toBe(200);
    expectOAuthError(await refresh(server, client, pair.refresh_token), 400, 'invalid_grant', TEXT.invalidGrant);
  });

  // Disabling revokes the user's tokens; one rotated in that very moment (on another instance) escaped the revocation
  // and went on refreshing for ever. Here the user is disabled without the revocation, as that token saw it.
  it('a refresh token of a user disabled since is invalid_grant, even one the revocation missed', async () => {
    const pair = await obtainPair(server, client);
    await server.deps.stores.userAdmin.setDisabledAt(userId, new Date());
    try {
      expectOAuthError(await refresh(server, client, pair.refresh_token), 400, 'invalid_grant', TEXT.invalidGrant);
    } finally {
      await server.deps.stores.userAdmin.setDisabledAt(userId, null);
    }
    expect((await refresh(server, client, pair.refresh_token)).statusCode).toBe(200);
  });

  it('the new access token keeps the lifetime of the one it replaces (reference 5.3)', async () => {
    const pair = await obtainPair(server, client);
    const first: Pair = (await refresh(server, client, pair.refresh_token)).json();
    server.clock.advance(7199);
    const second = (await refresh(server, client, first.refresh_token)).json();
    expect(second.expires_in).toBe(7200);
  });
});

describe(`refresh token rotation with refreshTokens.graceSeconds 60 (SPEC 5) on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;
  let asClient: Headers;

  beforeAll(async () => {
    ({ server, client, asClient } = await serverWithClient(base, { refreshTokens: { graceSeconds: 60 } }));
  });
  afterAll(() => server.close());

  it('within the window the same client presenting the old token gets a new pair of the family; nothing is revoked', async () => {
    const pair = await obtainPair(server, client);
    const next: Pair = (await refresh(server, client, pair.refresh_token)).json();
    // Well inside the window: the test clock also runs with real time.
    server.clock.advance(30);
    const retry = await refresh(server, client, pair.refresh_token);
    expect(retry.statusCode).toBe(200);
    const retried: Pair = retry.json();
    expect(retried.access_token).not.toBe(next.access_token);
    expect(await isActive(server.app, next.access_token, asClient)).toBe(true);
    expect(await isActive(server.app, retried.access_token, asClient)).toBe(true);
  });

  it('a refresh token imported without a family (a Doorkeeper row) gets the window too', async () => {
    const refreshToken = generateSecret();
    await server.deps.stores.accessTokens.create({
      applicationId: client.application.id,
      resourceOwnerId: userId,
      token: storedForm(generateSecret(), true),
      refreshToken: storedForm(refreshToken, true),
      expiresIn: 7200,
      scopes: ['read'],
      createdAt: new Date(),
      accessGrantId: null,
      refreshFamily: null,
    });
    const next: Pair = (await refresh(server, client, refreshToken)).json();
    server.clock.advance(30);
    const retry = await refresh(server, client, refreshToken);
    expect(retry.statusCode).toBe(200);
    expect(await isActive(server.app, next.access_token, asClient)).toBe(true);
    expect(await isActive(server.app, retry.json().access_token, asClient)).toBe(true);
  });

  it('after the window the old token is reuse: invalid_grant and the family is revoked', async () => {
    const pair = await obtainPair(server, client);
    const next: Pair = (await refresh(server, client, pair.refresh_token)).json();
    server.clock.advance(61);
    expectOAuthError(await refresh(server, client, pair.refresh_token), 400, 'invalid_grant', TEXT.invalidGrant);
    expect(await isActive(server.app, next.access_token, asClient)).toBe(false);
  });

  it('within the window another client is still refused (invalid_grant)', async () => {
    const pair = await obtainPair(server, client);
    await refresh(server, client, pair.refresh_token);
    const other = await createClient(server.deps);
    expectOAuthError(await refresh(server, other, pair.refresh_token), 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('within the window a family revoked meanwhile (RFC 7009) is not brought back', async () => {
    const pair = await obtainPair(server, client);
    const next: Pair = (await refresh(server, client, pair.refresh_token)).json();
    expect((await revokeRequest(server.app, { token: next.refresh_token }, asClient)).statusCode).toBe(200);
    expectOAuthError(await refresh(server, client, pair.refresh_token), 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('concurrent refreshes within the window: every request gets a live pair of the family', async () => {
    const pair = await obtainPair(server, client);
    const responses = await Promise.all(Array.from({ length: 3 }, () => refresh(server, client, pair.refresh_token)));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    for (const response of responses) expect(await isActive(server.app, response.json().access_token, asClient)).toBe(true);
  });
});

describe(`concurrent refreshes of one token (SPEC 3.1 and 9) on ${backend}`, () => {
  it.each([2, 5])(
    '%i parallel refreshes rotate exactly once: one 200, the others invalid_grant, and the family is revoked',
    async (count) => {
      const client = await createClient(base.deps);
      const asClient = basic(client.uid, client.secret!);
      const pair = await obtainPair(base, client);
      const responses = await Promise.all(Array.from({ length: count }, () => refresh(base, client, pair.refresh_token)));

      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, ...Array<number>(count - 1).fill(400)]);
      for (const loser of responses.filter((response) => response.statusCode !== 200)) {
        expect(loser.json()).toEqual({ error: 'invalid_grant', error_description: TEXT.invalidGrant });
      }
      // Exactly one successor row was created: the client's tokens are the exchanged pair and one successor.
      const rows = await base.testDatabase.database.sql.query<{ count: number | string }>(
        'SELECT count(*) AS count FROM oauth_access_tokens WHERE application_id = $1',
        [client.application.id],
      );
      expect(Number(rows[0]!.count)).toBe(2);
      // The losers presented a token that had just been rotated: reuse (RFC 9700 section 4.14.2), whichever came first.
      const winner: Pair = responses.find((response) => response.statusCode === 200)!.json();
      expect(await isActive(base.app, winner.access_token, asClient)).toBe(false);
    },
  );
});
