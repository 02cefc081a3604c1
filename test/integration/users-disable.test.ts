import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { userAgent } from '../helpers/end-user.js';
import { basic, isActive, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { disableUser } from '../../src/oauth/users/users.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { AdminSession, buildAdminServer } from './applications-support.js';

// Issue 16: the admin's Disable, Enable and "Revoke all tokens" buttons. A disabled user cannot log in (at
// /login nor through the password grant) and every token of theirs stops working at once.

describe(`/oauth/users disable, enable and revoke all tokens (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  beforeAll(async () => {
    server = await buildAdminServer({ grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', 'password'] });
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  const asClient = () => basic(client.uid, client.secret!);
  const passwordGrant = (username: string, password: string) =>
    tokenRequest(server.app, { grant_type: 'password', username, password }, asClient());
  const login = async (username: string, password: string) => {
    const agent = userAgent(server.app);
    return (await agent.post('/login', { username, password })).statusCode;
  };
  const press = async (userId: number, action: string) => {
    const admin = new AdminSession(server.app);
    await admin.get(`/oauth/users/${userId}`);
    const response = await admin.submit(`/oauth/users/${userId}/${action}`, {});
    expect(response.statusCode).toBe(302);
    return (await admin.follow(response)).body;
  };

  it('Disable revokes every token and code at once (introspection: inactive) and refuses /login and the password grant', async () => {
    const user = await createUser(server.deps, 'alice', 'alice password');
    const granted = await passwordGrant('alice', 'alice password');
    expect(granted.statusCode).toBe(200);
    const { access_token: fromGrant, refresh_token: refreshToken } = granted.json() as { access_token: string; refresh_token: string };
    const issued = await issueToken(server.deps, { application: client.application, resourceOwnerId: user.id, withRefreshToken: true });
    expect(await isActive(server.app, fromGrant, asClient())).toBe(true);

    const page = await press(user.id, 'disable');
    expect(page).toContain('User disabled; 2 tokens and 0 grants revoked.');
    expect(page).toMatch(/Disabled since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC:/);
    expect(page).toContain('>Enable</button>');
    expect(await isActive(server.app, fromGrant, asClient())).toBe(false);
    expect(await isActive(server.app, issued.accessToken, asClient())).toBe(false);

    // Refused like a wrong password: the same status and message, nothing tells that the account exists.
    expect(await login('alice', 'alice password')).toBe(401);
    const refused = await passwordGrant('alice', 'alice password');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
    const wrong = await passwordGrant('alice', 'not the password');
    expect(refused.json()).toEqual(wrong.json());
    const refreshed = await tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: refreshToken }, asClient());
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });

    const list = await new AdminSession(server.app).get('/oauth/users?q=alice');
    expect(list.body).toMatch(/alice<\/a><\/td>[\s\S]*?<td>Disabled<\/td>/);
  });

  it('Enable lets the user log in again; the tokens revoked on disabling stay revoked', async () => {
    const user = await createUser(server.deps, 'bob', 'bob password');
    const issued = await issueToken(server.deps, { application: client.application, resourceOwnerId: user.id });
    await press(user.id, 'disable');
    expect(await login('bob', 'bob password')).toBe(401);

    const page = await press(user.id, 'enable');
    expect(page).toContain('User enabled: they can log in again.');
    expect(page).toContain('>Disable</button>');
    expect((await server.deps.stores.users.findById(user.id))!.disabledAt).toBeNull();
    expect(await login('bob', 'bob password')).toBe(303);
    expect((await passwordGrant('bob', 'bob password')).statusCode).toBe(200);
    expect(await isActive(server.app, issued.accessToken, asClient())).toBe(false);
  });

  it("Disable ends the user's sign-ins: after Enable, a browser (or a copy of its cookie) signed in before must sign in again", async () => {
    const user = await createUser(server.deps, 'frank', 'frank password');
    const agent = userAgent(server.app);
    expect((await agent.post('/login', { username: 'frank', password: 'frank password' })).statusCode).toBe(303);
    expect((await agent.request({ method: 'GET', url: '/account' })).statusCode).toBe(200);
    // Not used while disabled: nothing on the browser's side ended the session.
    await press(user.id, 'disable');
    await press(user.id, 'enable');
    const after = await agent.request({ method: 'GET', url: '/account' });
    expect(after.statusCode).toBe(302);
    expect(String(after.headers.location)).toMatch(/^\/login/);
  });

  it("Revoke all tokens ends every token of the user and nobody else's; the user may still log in", async () => {
    const carol = await createUser(server.deps, 'carol', 'carol password');
    const dave = await createUser(server.deps, 'dave', 'dave password');
    const carols = await Promise.all(
      [1, 2].map(() => issueToken(server.deps, { application: client.application, resourceOwnerId: carol.id })),
    );
    const daves = await issueToken(server.deps, { application: client.application, resourceOwnerId: dave.id });

    // Confirmed on a page of its own first (it acted at one click; found by the admin pages' audit).
    const confirm = await new AdminSession(server.app).get(`/oauth/users/${carol.id}/revoke_tokens`);
    expect(confirm.body).toContain('Revoke every token and unused authorization code of <strong>carol</strong>, in every application?');
    expect(confirm.body).toContain(`<form method="post" action="/oauth/users/${carol.id}/revoke_tokens">`);
    expect(await isActive(server.app, carols[0]!.accessToken, asClient())).toBe(true);
    const page = await press(carol.id, 'revoke_tokens');
    expect(page).toContain('2 tokens and 0 grants revoked.');
    for (const token of carols) expect(await isActive(server.app, token.accessToken, asClient())).toBe(false);
    expect(await isActive(server.app, daves.accessToken, asClient())).toBe(true);
    expect(await login('carol', 'carol password')).toBe(303);
  });

  it('a disabled user costs /login the same password verification as a wrong password (timing tells nothing)', async () => {
    let verifications = 0;
    const counting = {
      hash: argon2Hasher.hash,
      verify: (hash: string, password: string) => (verifications++, argon2Hasher.verify(hash, password)),
    };
    const counted = await buildTestServer({ passwords: counting, testDatabase: server.testDatabase });
    try {
      const user = await createUser(server.deps, 'erin', 'erin password');
      await disableUser(server.deps, user);
      for (const password of ['erin password', 'wrong password']) {
        verifications = 0;
        const response = await userAgent(counted.app).post('/login', { username: 'erin', password });
        expect(response.statusCode, password).toBe(401);
        expect(response.body).toContain('Invalid username or password.');
        expect(verifications, password).toBe(1);
      }
    } finally {
      await counted.app.close();
    }
  });
});
