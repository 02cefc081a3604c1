import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCode, createUser, type TestClient } from '../helpers/factories.js';
import {
  basic,
  bearer,
  during,
  expectOAuthError,
  expectTokenResponse,
  isActive,
  missing,
  OPAQUE_TOKEN,
  type Params,
  TEXT,
  tokenInfoRequest,
  tokenRequest,
} from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 6749 section 4.1.3 (the code exchange) and RFC 7636 (PKCE), with reference 5.4 and SPEC 3.1 and 8.

// RFC 7636 appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

// One database for the file; each describe's server has its own config on it.
let base: TestServer;
let userId: number;
beforeAll(async () => {
  base = await buildTestServer({ config: { optionalScopes: ['write'] } });
  userId = (await createUser(base.deps)).id;
});
afterAll(() => base.close());

type CodeOptions = { scopes?: string[]; challenge?: string; method?: string; redirectUri?: string; owner?: number };
const newCode = (server: TestServer, client: TestClient, options: CodeOptions = {}) =>
  createCode(server.deps, {
    application: client.application,
    resourceOwnerId: options.owner ?? userId,
    scopes: options.scopes ?? ['read'],
    ...(options.redirectUri && { redirectUri: options.redirectUri }),
    ...(options.challenge && { codeChallenge: options.challenge, codeChallengeMethod: options.method ?? 'S256' }),
  });
const exchange = (server: TestServer, params: Params, headers?: Record<string, string>) =>
  tokenRequest(server.app, { grant_type: 'authorization_code', ...params }, headers);

describe(`POST /oauth/token grant_type=authorization_code (RFC 6749 section 4.1.3) on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;
  let other: TestClient;
  let asClient: Record<string, string>;

  beforeAll(async () => {
    server = base;
    client = await createClient(server.deps);
    other = await createClient(server.deps);
    asClient = basic(client.uid, client.secret!);
  });

  it('exchanges a code for an access token and a refresh token (RFC 6749 section 4.1.4)', async () => {
    const { code, redirectUri } = await newCode(server, client);
    const body = expectTokenResponse(await during(server.clock, () => exchange(server, { code, redirect_uri: redirectUri }, asClient)), {
      access_token: expect.stringMatching(OPAQUE_TOKEN),
      refresh_token: expect.stringMatching(OPAQUE_TOKEN),
      scope: 'read',
    });
    // Reference 5.2 and SPEC 3.1 list the keys in this order, created_at last.
    expect(Object.keys(body)).toEqual(['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'created_at']);
    const info = (await tokenInfoRequest(server.app, bearer(body.access_token))).json();
    expect(info).toEqual({
      resource_owner_id: userId,
      scope: ['read'],
      expires_in: expect.any(Number),
      application: { uid: client.uid },
      created_at: body.created_at,
    });
  });

  it('client_secret_post works as well as Basic (RFC 6749 section 2.3.1)', async () => {
    const { code, redirectUri } = await newCode(server, client);
    const response = await exchange(server, { code, redirect_uri: redirectUri, client_id: client.uid, client_secret: client.secret! });
    expect(response.statusCode).toBe(200);
  });

  it('the token gets the scopes of the code; a scope parameter is ignored (reference 5.4)', async () => {
    const { code, redirectUri } = await newCode(server, client, { scopes: ['read', 'write'] });
    const response = await exchange(server, { code, redirect_uri: redirectUri, scope: 'read' }, asClient);
    expect(response.json()).toMatchObject({ scope: 'read write' });
  });

  it('rejects a reused code and revokes its tokens (RFC 6749 section 4.1.2, SPEC 8)', async () => {
    const { code, redirectUri } = await newCode(server, client);
    const first = (await exchange(server, { code, redirect_uri: redirectUri }, asClient)).json();
    expect(await isActive(server.app, first.access_token, asClient)).toBe(true);

    const replay = await exchange(server, { code, redirect_uri: redirectUri }, asClient);
    expectOAuthError(replay, 400, 'invalid_grant', TEXT.invalidGrant);
    expect(await isActive(server.app, first.access_token, asClient)).toBe(false);
    const refresh = await tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, asClient);
    expectOAuthError(refresh, 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('redirect_uri must equal the one of the authorization request (RFC 6749 section 4.1.3)', async () => {
    const redirectUri = 'https://app.example.com/callback';
    for (const sent of [
      `${redirectUri}/`,
      `${redirectUri}?x=1`,
      'https://APP.example.com/callback',
      'https://app.example.com:443/callback',
      'https://evil.example.com/callback',
    ]) {
      const { code } = await newCode(server, client, { redirectUri });
      const response = await exchange(server, { code, redirect_uri: sent }, asClient);
      expectOAuthError(response, 400, 'invalid_grant', TEXT.invalidGrant);
    }
  });

  it('redirect_uri is required (reference 5.4)', async () => {
    const { code } = await newCode(server, client);
    expectOAuthError(await exchange(server, { code }, asClient), 400, 'invalid_request', missing('redirect_uri'));
  });

  it("another client's code is invalid_grant, and does not use the code up", async () => {
    const { code, redirectUri } = await newCode(server, client);
    const stolen = await exchange(server, { code, redirect_uri: redirectUri }, basic(other.uid, other.secret!));
    expectOAuthError(stolen, 400, 'invalid_grant', TEXT.invalidGrant);
    expect((await exchange(server, { code, redirect_uri: redirectUri }, asClient)).statusCode).toBe(200);
  });

  it('a code is valid for authorizationCodeExpiresIn (600 s), and not after', async () => {
    const young = await newCode(server, client);
    const old = await newCode(server, client);
    // The test clock runs with real time: a margin keeps the first exchange clear of the boundary.
    server.clock.advance(590);
    expect((await exchange(server, { code: young.code, redirect_uri: young.redirectUri }, asClient)).statusCode).toBe(200);
    server.clock.advance(10);
    const expired = await exchange(server, { code: old.code, redirect_uri: old.redirectUri }, asClient);
    expectOAuthError(expired, 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('a confidential client must authenticate (RFC 6749 section 4.1.3)', async () => {
    const { code, redirectUri } = await newCode(server, client);
    expectOAuthError(
      await exchange(server, { code, redirect_uri: redirectUri, client_id: client.uid }),
      401,
      'invalid_client',
      TEXT.invalidClient,
    );
  });
});

describe(`PKCE at the code exchange (RFC 7636 section 4.5 and 4.6) on ${backend}`, () => {
  let server: TestServer;
  let publicClient: TestClient;
  let confidential: TestClient;

  beforeAll(async () => {
    server = base;
    publicClient = await createClient(server.deps, { confidential: false });
    confidential = await createClient(server.deps);
  });

  it('S256: the verifier of RFC 7636 appendix B matches its challenge; a public client sends client_id only', async () => {
    const { code, redirectUri } = await newCode(server, publicClient, { challenge: CHALLENGE });
    const response = await exchange(server, { code, redirect_uri: redirectUri, code_verifier: VERIFIER, client_id: publicClient.uid });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ token_type: 'Bearer', scope: 'read' });
  });

  it('S256: a different verifier is invalid_grant', async () => {
    const { code, redirectUri } = await newCode(server, publicClient, { challenge: CHALLENGE });
    const wrong = `${VERIFIER.slice(0, -1)}A`;
    expectOAuthError(
      await exchange(server, { code, redirect_uri: redirectUri, code_verifier: wrong, client_id: publicClient.uid }),
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    );
  });

  it('S256: the challenge itself sent as verifier is invalid_grant', async () => {
    const { code, redirectUri } = await newCode(server, publicClient, { challenge: CHALLENGE });
    const response = await exchange(server, { code, redirect_uri: redirectUri, code_verifier: CHALLENGE, client_id: publicClient.uid });
    expectOAuthError(response, 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('a code with a challenge needs the verifier: invalid_request (RFC 7636 section 4.5)', async () => {
    const { code, redirectUri } = await newCode(server, confidential, { challenge: CHALLENGE });
    const response = await exchange(server, { code, redirect_uri: redirectUri }, basic(confidential.uid, confidential.secret!));
    expectOAuthError(response, 400, 'invalid_request', missing('code_verifier'));
  });

  it('without client authentication, a code with a challenge is invalid_client like a random one: the code tells strangers nothing (finding 9)', async () => {
    const { code, redirectUri } = await newCode(server, confidential, { challenge: CHALLENGE });
    expectOAuthError(await exchange(server, { code, redirect_uri: redirectUri }), 401, 'invalid_client', TEXT.invalidClient);
    expectOAuthError(await exchange(server, { code: 'random-code', redirect_uri: redirectUri }), 401, 'invalid_client', TEXT.invalidClient);
    // Another confidential client learns nothing either: the code is not its own, so invalid_grant.
    const stranger = await createClient(server.deps);
    expectOAuthError(
      await exchange(server, { code, redirect_uri: redirectUri }, basic(stranger.uid, stranger.secret!)),
      400,
      'invalid_grant',
      TEXT.invalidGrant,
    );
  });

  it('a verifier sent for a code issued without a challenge is invalid_grant (reference 5.4)', async () => {
    const { code, redirectUri } = await newCode(server, confidential);
    const response = await exchange(
      server,
      { code, redirect_uri: redirectUri, code_verifier: VERIFIER },
      basic(confidential.uid, confidential.secret!),
    );
    expectOAuthError(response, 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it('a public client without a verifier while PKCE is required for public clients: invalid_request (SPEC 3.5)', async () => {
    const { code, redirectUri } = await newCode(server, publicClient);
    const response = await exchange(server, { code, redirect_uri: redirectUri, client_id: publicClient.uid });
    expectOAuthError(response, 400, 'invalid_request', missing('code_verifier'));
  });

  it('plain is refused while pkce.methods does not list it (RFC 7636 section 4.2, SPEC 3.5)', async () => {
    const { code, redirectUri } = await newCode(server, publicClient, { challenge: VERIFIER, method: 'plain' });
    const response = await exchange(server, { code, redirect_uri: redirectUri, code_verifier: VERIFIER, client_id: publicClient.uid });
    expectOAuthError(response, 400, 'invalid_grant', TEXT.invalidGrant);
  });

  describe('with pkce {required: "all", methods: ["S256", "plain"]}', () => {
    let strict: TestServer;
    beforeAll(async () => {
      strict = await buildTestServer({
        testDatabase: base.testDatabase,
        config: { pkce: { required: 'all', methods: ['S256', 'plain'] } },
      });
    });
    afterAll(() => strict.close());

    it('plain: verifier equal to the challenge is accepted once enabled', async () => {
      const { code, redirectUri } = await newCode(strict, publicClient, { challenge: VERIFIER, method: 'plain' });
      const response = await exchange(strict, { code, redirect_uri: redirectUri, code_verifier: VERIFIER, client_id: publicClient.uid });
      expect(response.statusCode).toBe(200);
    });

    it('plain: a different verifier is invalid_grant', async () => {
      const { code, redirectUri } = await newCode(strict, publicClient, { challenge: VERIFIER, method: 'plain' });
      const response = await exchange(strict, { code, redirect_uri: redirectUri, code_verifier: CHALLENGE, client_id: publicClient.uid });
      expectOAuthError(response, 400, 'invalid_grant', TEXT.invalidGrant);
    });

    it('required "all": a confidential client without a verifier is invalid_request', async () => {
      const { code, redirectUri } = await newCode(strict, confidential);
      const response = await exchange(strict, { code, redirect_uri: redirectUri }, basic(confidential.uid, confidential.secret!));
      expectOAuthError(response, 400, 'invalid_request', missing('code_verifier'));
    });
  });

  describe('with pkce {required: "none"}', () => {
    let relaxed: TestServer;
    beforeAll(async () => {
      relaxed = await buildTestServer({ testDatabase: base.testDatabase, config: { pkce: { required: 'none' } } });
    });
    afterAll(() => relaxed.close());

    it('a public client may exchange a code issued without a challenge', async () => {
      const { code, redirectUri } = await newCode(relaxed, publicClient);
      expect((await exchange(relaxed, { code, redirect_uri: redirectUri, client_id: publicClient.uid })).statusCode).toBe(200);
    });
  });
});

describe(`authorization_code settings (SPEC 5) on ${backend}`, () => {
  it('revokePreviousAuthorizationCodeToken: a new exchange revokes the earlier tokens of that application and user only', async () => {
    const server = await buildTestServer({ testDatabase: base.testDatabase, config: { revokePreviousAuthorizationCodeToken: true } });
    try {
      const client = await createClient(server.deps);
      const other = await createClient(server.deps);
      const otherUser = (await createUser(server.deps)).id;
      const asClient = basic(client.uid, client.secret!);
      const issue = async (who: TestClient, owner = userId) => {
        const { code, redirectUri } = await newCode(server, who, { owner });
        return (await exchange(server, { code, redirect_uri: redirectUri }, basic(who.uid, who.secret!))).json().access_token as string;
      };
      const first = await issue(client);
      const otherUsers = await issue(client, otherUser);
      const otherClients = await issue(other);
      const second = await issue(client);
      expect(await isActive(server.app, first, asClient)).toBe(false);
      expect(await isActive(server.app, second, asClient)).toBe(true);
      expect(await isActive(server.app, otherUsers, asClient)).toBe(true);
      expect(await isActive(server.app, otherClients, basic(other.uid, other.secret!))).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('without the refresh_token flow the response has no refresh_token (reference 5.3)', async () => {
    const server = await buildTestServer({ testDatabase: base.testDatabase, config: { grantFlows: ['authorization_code'] } });
    try {
      const client = await createClient(server.deps);
      const { code, redirectUri } = await newCode(server, client);
      const body = (await exchange(server, { code, redirect_uri: redirectUri }, basic(client.uid, client.secret!))).json();
      expect(Object.keys(body).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'scope', 'token_type']);
    } finally {
      await server.close();
    }
  });
});

describe(`concurrent exchanges of one code (RFC 6749 section 4.1.2, SPEC 9) on ${backend}`, () => {
  // By default the exchange is one statement; revokePreviousAuthorizationCodeToken (as reuseAccessToken) adds to it,
  // and it is a transaction of several: the one-winner rule holds for both.
  it.each([
    ['in one statement', {}],
    ['in a transaction (revokePreviousAuthorizationCodeToken)', { revokePreviousAuthorizationCodeToken: true }],
  ])(
    '20 parallel exchanges of one code %s: exactly one 200, the rest invalid_grant, the replay revokes the issued token',
    async (_, config) => {
      const server = await buildTestServer({ testDatabase: base.testDatabase, config });
      try {
        const client = await createClient(server.deps);
        const asClient = basic(client.uid, client.secret!);
        const { code, redirectUri } = await newCode(server, client);
        const responses = await Promise.all(
          Array.from({ length: 20 }, () => exchange(server, { code, redirect_uri: redirectUri }, asClient)),
        );

        const statuses = responses.map((response) => response.statusCode).sort();
        expect(statuses).toEqual([200, ...Array<number>(19).fill(400)]);
        for (const loser of responses.filter((response) => response.statusCode !== 200)) {
          expect(loser.json()).toEqual({ error: 'invalid_grant', error_description: TEXT.invalidGrant });
        }
        const winner = responses.find((response) => response.statusCode === 200)!.json();
        expect(await isActive(server.app, winner.access_token, asClient)).toBe(false);
        // Only the winner stored a token.
        const tokens = await server.app.database.sql.query('SELECT id FROM oauth_access_tokens WHERE application_id = $1', [
          client.application.id,
        ]);
        expect(tokens).toHaveLength(1);
      } finally {
        await server.close();
      }
    },
  );
});
