import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { basic, introspectRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { codeFlow, jwksOf, openIdServer, verifiedIdToken } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';

// Issue 31 item 2, one subject everywhere: introspecting a user's token answers the `sub` its ID token, UserInfo and
// its JWT access token carry (RFC 7662 section 2.2, RFC 9068 section 2.2, OpenID Connect Core 8), for a public
// client the user's own subject, for a pairwise one its sector's; the numeric user id only under a name of its own.

const SALT = 'pairwise-salt-for-introspection-tests-0123456789';

interface Client {
  application: ApplicationRecord;
  plainSecret: string | null;
}

interface Issued {
  idTokenSub: unknown;
  accessToken: string;
  refreshToken: string;
}

describe(`RFC 7662 section 2.2 sub of a user's token (${backend})`, () => {
  let server: TestServer;
  let user: UserRecord;
  let agent: UserAgent;
  beforeAll(async () => {
    server = await openIdServer({
      config: {
        openid: { enabled: true, pairwiseSalt: SALT },
        grantFlows: ['authorization_code', 'client_credentials', 'refresh_token'],
        introspection: { response: { user_id: 'resourceOwnerId', openid_sub: 'subject' } },
      },
    });
    user = await createUser(server.deps, 'subject-owner');
    agent = await signedIn(server.app, user.username);
  });
  afterAll(() => server.close());

  const asClient = ({ application, plainSecret }: Client) => basic(application.uid, plainSecret!);
  const introspect = async (client: Client, token: string) => {
    const response = await introspectRequest(server.app, { token }, asClient(client));
    expect(response.statusCode).toBe(200);
    return response.json() as Record<string, unknown>;
  };

  /** The code flow with openid: the ID token's sub and the tokens it came with (a JWT access token for a jwt client). */
  const issued = async (client: Client): Promise<Issued> => {
    const { response } = await codeFlow(server, agent, client, { scope: 'openid read' });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    const idToken = await verifiedIdToken(server, body.id_token, client.application.uid);
    return { idTokenSub: idToken.sub, accessToken: body.access_token, refreshToken: body.refresh_token };
  };

  const userinfoSub = async (accessToken: string) => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().sub;
  };

  const jwtSub = async (accessToken: string) => {
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet(await jwksOf(server)), {
      issuer: server.config.baseUrl.replace(/\/+$/, ''),
      typ: 'at+jwt',
    });
    return payload.sub;
  };

  for (const subjectType of ['public', 'pairwise'] as const) {
    it(`RFC 7662 section 2.2 and RFC 9068 section 2.2: a ${subjectType} client's introspected sub is its ID token's, UserInfo's and JWT access token's`, async () => {
      const client = await createClient(server.deps, { accessTokenFormat: 'jwt', subjectType, scopes: 'openid read' });
      const { idTokenSub, accessToken, refreshToken } = await issued(client);
      if (subjectType === 'public') expect(idTokenSub).toBe(user.subject);
      else expect(idTokenSub).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await jwtSub(accessToken)).toBe(idTokenSub);
      expect(await userinfoSub(accessToken)).toBe(idTokenSub);
      const answer = await introspect(client, accessToken);
      expect(answer).toMatchObject({ active: true, sub: idTokenSub, client_id: client.application.uid });
      // The configured sources beside it: the numeric id under its own name, and `subject`, the same sub.
      // A number, as Doorkeeper's resource_owner_id (docs audit: an API written for it got a string).
      expect(answer.user_id).toBe(user.id);
      expect(answer.openid_sub).toBe(idTokenSub);
      // SPEC 3.3: a refresh token is introspected too, for the same user.
      expect(await introspect(client, refreshToken)).toMatchObject({ active: true, token_type: 'refresh_token', sub: idTokenSub });
    });
  }

  it("RFC 7662 section 2.2: an opaque access token's sub is the ID token's too", async () => {
    const client = await createClient(server.deps, { subjectType: 'pairwise', scopes: 'openid read' });
    const { idTokenSub, accessToken } = await issued(client);
    expect(accessToken).not.toContain('.');
    expect(await introspect(client, accessToken)).toMatchObject({ active: true, sub: idTokenSub });
    expect(idTokenSub).not.toBe(user.subject);
  });

  it('RFC 9068 section 2.2: a client_credentials token has no user, and its introspection no sub (nor user fields)', async () => {
    const client = await createClient(server.deps, { subjectType: 'pairwise' });
    const token = await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient(client));
    expect(token.statusCode, token.body).toBe(200);
    const answer = await introspect(client, token.json().access_token);
    expect(answer.active).toBe(true);
    expect(Object.keys(answer).sort()).toEqual(['active', 'client_id', 'exp', 'iat', 'scope', 'token_type']);
  });
});

describe(`RFC 7662 section 2.2 sub against configured response fields (${backend})`, () => {
  let first: TestServer;
  let mapped: TestServer;
  let hooked: TestServer;
  let client: Client;
  let user: UserRecord;
  let accessToken: string;
  beforeAll(async () => {
    // Servers on one database share its signing keys, so they share the key they are encrypted under.
    const env = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    first = await openIdServer({ env });
    user = await createUser(first.deps, 'mapped-owner');
    client = await createClient(first.deps, { scopes: 'openid read' });
    const { response } = await codeFlow(first, await signedIn(first.app, user.username), client, { scope: 'openid read' });
    accessToken = response.json().access_token;
    // Two more servers on the same database, one with the old docs' mapping, one with an introspection hook.
    mapped = await openIdServer({
      env,
      testDatabase: first.testDatabase,
      config: { introspection: { response: { sub: 'resourceOwnerId' } } },
    });
    hooked = await openIdServer({
      env,
      testDatabase: first.testDatabase,
      extensions: { customIntrospectionResponse: () => ({ tenant: 'acme' }) },
    });
  });
  afterAll(async () => {
    await hooked.close();
    await mapped.close();
    await first.close();
  });

  const introspect = async (on: TestServer) =>
    (await introspectRequest(on.app, { token: accessToken }, basic(client.application.uid, client.plainSecret!))).json();

  it('RFC 7662 section 2.2: by default the sub is the OpenID subject, not the numeric id', async () => {
    const answer = await introspect(first);
    expect(answer.sub).toBe(user.subject);
    expect(answer.sub).not.toBe(String(user.id));
  });

  it('a configured response.sub wins over the standard one, and the config says what it replaces', async () => {
    expect((await introspect(mapped)).sub).toBe(String(user.id));
    expect(mapped.config.deprecations).toEqual([
      'introspection.response.sub is resourceOwnerId: introspection then answers sub with the numeric user id instead of the user\'s OpenID subject (the sub of ID tokens, UserInfo and JWT access tokens); remove it, or answer that value under another name (for example "user_id": "resourceOwnerId")',
    ]);
    expect(first.config.deprecations).toEqual([]);
  });

  it("the customIntrospectionResponse hook's fields come beside the standard sub", async () => {
    expect(await introspect(hooked)).toMatchObject({ active: true, sub: user.subject, tenant: 'acme' });
  });
});
