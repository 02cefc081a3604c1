import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, type TestClient } from '../helpers/factories.js';
import {
  basic,
  bearer,
  during,
  expectOAuthError,
  expectTokenResponse,
  type Headers,
  missing,
  OPAQUE_TOKEN,
  serverWithClient,
  TEXT,
  tokenInfoRequest,
  tokenRequest,
} from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 6749 section 4.3: the resource owner password credentials grant, off by default (SPEC 5), with
// reference 5.6 and 21.10.

// One database for the file; each describe's server has its own config on it.
let base: TestServer;
let user: { id: number; username: string; password: string };
beforeAll(async () => {
  base = await buildTestServer();
  user = await createUser(base.deps);
});
afterAll(() => base.close());

describe(`POST /oauth/token grant_type=password while disabled (default) on ${backend}`, () => {
  it('is unsupported_grant_type, even with valid client and user credentials (reference 21.10 #1)', async () => {
    const client = await createClient(base.deps);
    const response = await tokenRequest(
      base.app,
      { grant_type: 'password', username: user.username, password: user.password },
      basic(client.uid, client.secret!),
    );
    expectOAuthError(response, 400, 'unsupported_grant_type', TEXT.unsupportedGrantType);
  });
});

describe(`POST /oauth/token grant_type=password (RFC 6749 section 4.3) on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;
  let asClient: Headers;

  beforeAll(async () => {
    ({ server, client, asClient } = await serverWithClient(base, {
      grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', 'password'],
      optionalScopes: ['write'],
    }));
  });
  afterAll(() => server.close());

  const grant = (params: Record<string, string>, headers?: Headers) =>
    tokenRequest(server.app, { grant_type: 'password', username: user.username, password: user.password, ...params }, headers);

  it("a confidential client with the user's credentials gets a token pair for that user (RFC 6749 section 4.3.3)", async () => {
    const body = expectTokenResponse(await during(server.clock, () => grant({}, asClient)), {
      access_token: expect.stringMatching(OPAQUE_TOKEN),
      refresh_token: expect.stringMatching(OPAQUE_TOKEN),
      scope: 'read',
    });
    const info = (await tokenInfoRequest(server.app, bearer(body.access_token))).json();
    expect(info).toMatchObject({ resource_owner_id: user.id, application: { uid: client.uid } });
  });

  it('the refresh token it returns can be used (RFC 6749 section 6)', async () => {
    const { refresh_token } = (await grant({}, asClient)).json();
    const refreshed = await tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token }, asClient);
    expect(refreshed.statusCode).toBe(200);
  });

  it('a user name over 255 characters or a password over 1024 is invalid_request, as /login takes them, and is not audited', async () => {
    const description = 'The username may have at most 255 characters, the password 1024.';
    expectOAuthError(await grant({ username: 'u'.repeat(256) }, asClient), 400, 'invalid_request', description);
    expectOAuthError(await grant({ password: 'p'.repeat(1025) }, asClient), 400, 'invalid_request', description);
    const audited = await server.deps.stores.auditEvents.list({ limit: 50 });
    expect(audited.some((event) => event.subjectId === 'u'.repeat(256))).toBe(false);
  });

  it('a requested optional scope is granted; an unknown one is invalid_scope', async () => {
    expect((await grant({ scope: 'read write' }, asClient)).json()).toMatchObject({ scope: 'read write' });
    expectOAuthError(await grant({ scope: 'random' }, asClient), 400, 'invalid_scope', TEXT.invalidScope);
  });

  it('an application whose scopes share none of the defaults gets a token without scope (reference 8.3)', async () => {
    const writer = await createClient(server.deps, { scopes: 'write' });
    const body = (await grant({}, basic(writer.uid, writer.secret!))).json();
    expect(body).toHaveProperty('access_token');
    expect(body).not.toHaveProperty('scope');
  });

  it.each([
    ['a wrong password', { password: 'wrong' }],
    ['an unknown user', { username: 'nobody-by-this-name' }],
    ['the password with a character more', { password: `${'correct horse battery'} ` }],
  ])('%s is invalid_grant (RFC 6749 section 5.2)', async (_label, params) => {
    expectOAuthError(await grant(params, asClient), 400, 'invalid_grant', TEXT.invalidGrant);
  });

  it.each(['username', 'password'])('a missing %s is invalid_request (SPEC 3.1)', async (name) => {
    const params: Record<string, string> = { grant_type: 'password', username: user.username, password: user.password };
    delete params[name];
    expectOAuthError(await tokenRequest(server.app, params, asClient), 400, 'invalid_request', missing(name));
  });

  it('a public client identifies itself with client_id alone (reference 5.6)', async () => {
    const publicClient = await createClient(server.deps, { confidential: false });
    expect((await grant({ client_id: publicClient.uid })).statusCode).toBe(200);
  });

  it.each([
    ['no client credentials', () => ({})],
    ['a confidential client_id without its secret', () => ({ client_id: client.uid })],
    ['a wrong secret', () => ({ client_id: client.uid, client_secret: 'bad_secret' })],
    ['an unknown client_id', () => ({ client_id: 'bad_id' })],
  ])('%s: 401 invalid_client (RFC 6749 section 4.3.2)', async (_label, credentials) => {
    expectOAuthError(await grant(credentials()), 401, 'invalid_client', TEXT.invalidClient);
  });

  it('a public client sending a wrong secret: 401 invalid_client (reference 2.5)', async () => {
    const publicClient = await createClient(server.deps, { confidential: false });
    expectOAuthError(await grant({ client_id: publicClient.uid, client_secret: 'foobar' }), 401, 'invalid_client', TEXT.invalidClient);
  });
});

describe(`grant_type=password with the resourceOwnerFromCredentials hook (SPEC 7) on ${backend}`, () => {
  it('the hook decides who the resource owner is; null is invalid_grant', async () => {
    const seen: Array<[string, string]> = [];
    const server = await buildTestServer({
      testDatabase: base.testDatabase,
      config: { grantFlows: ['password'] },
      extensions: {
        resourceOwnerFromCredentials: (username, password) => {
          seen.push([username, password]);
          return username === 'directory-user' && password === 'directory-pass' ? { id: user.id } : null;
        },
      },
    });
    try {
      const client = await createClient(server.deps);
      const asClient = basic(client.uid, client.secret!);
      const ok = await tokenRequest(
        server.app,
        { grant_type: 'password', username: 'directory-user', password: 'directory-pass' },
        asClient,
      );
      expect(ok.statusCode).toBe(200);
      expect((await tokenInfoRequest(server.app, bearer(ok.json().access_token))).json()).toMatchObject({ resource_owner_id: user.id });
      const local = await tokenRequest(server.app, { grant_type: 'password', username: user.username, password: user.password }, asClient);
      expectOAuthError(local, 400, 'invalid_grant', TEXT.invalidGrant);
      expect(seen).toEqual([
        ['directory-user', 'directory-pass'],
        [user.username, user.password],
      ]);
    } finally {
      await server.close();
    }
  });

  it("an answer of another shape (true, {}, a string id) is the extension's mistake: 500 server_error, no token, never a sign-in", async () => {
    for (const answer of [true, {}, { id: 'abc' }, { id: 0 }]) {
      const server = await buildTestServer({
        testDatabase: base.testDatabase,
        config: { grantFlows: ['password'] },
        extensions: { resourceOwnerFromCredentials: () => answer as unknown as { id: number } },
      });
      try {
        const client = await createClient(server.deps);
        const response = await tokenRequest(
          server.app,
          { grant_type: 'password', username: 'anyone', password: 'anything' },
          basic(client.uid, client.secret!),
        );
        expect({ answer, status: response.statusCode, error: response.json().error }).toEqual({
          answer,
          status: 500,
          error: 'server_error',
        });
        expect(response.json()).not.toHaveProperty('access_token');
      } finally {
        await server.close();
      }
    }
  });
});
