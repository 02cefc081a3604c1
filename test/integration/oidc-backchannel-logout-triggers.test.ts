import { createLocalJWKSet, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeUserTokens } from '../../src/oauth/users/users.js';
import { backchannelReceiver, validLogoutToken, type BackchannelReceiver, type LogoutRequest } from '../helpers/backchannel-receiver.js';
import { deliveryRows, relyingParty, signedInAt } from '../helpers/backchannel-logout.js';
import { authorizeUrl, CALLBACK, createUser, PASSWORD, type UserAgent } from '../helpers/end-user.js';
import { jwksOf } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, buildAdminServer, buildOpenIdAdminServer } from './applications-support.js';

// OpenID Connect Back-Channel Logout 1.0: what ends a user's sessions at the relying parties besides their own logout
// (oidcc-backchannel-rp-initiated-logout covers that): an admin disabling the user or revoking all their tokens, the
// user revoking one application, and a revocation made by the CLI. Section 2.3: only the clients that hold the user's
// tokens are told; section 2.4: without a sid (every session of the user), or one per session where the client
// requires a sid (backchannel_logout_session_required).

describe(`Back-Channel Logout 1.0: what logs a user out of the relying parties (${backend})`, () => {
  let server: TestServer;
  let first: BackchannelReceiver;
  let second: BackchannelReceiver;
  let firstClient: Awaited<ReturnType<typeof relyingParty>>;
  let secondClient: Awaited<ReturnType<typeof relyingParty>>;
  beforeAll(async () => {
    server = await buildOpenIdAdminServer();
    first = await backchannelReceiver();
    second = await backchannelReceiver();
    firstClient = await relyingParty(server, first.url, { name: 'First RP' });
    secondClient = await relyingParty(server, second.url, { name: 'Second RP', backchannelLogoutSessionRequired: true });
  });
  afterAll(async () => {
    await server.close();
    await first.close();
    await second.close();
  });

  let users = 0;
  const newUser = () => createUser(server.deps, `trigger-user-${++users}`);
  const claimsOf = async (request: LogoutRequest, client: typeof firstClient): Promise<JWTPayload> =>
    validLogoutToken(request.logoutToken!, {
      keys: createLocalJWKSet(await jwksOf(server)),
      issuer: server.config.baseUrl.replace(/\/+$/, ''),
      clientId: client.application.uid,
    });
  const sidOf = (idToken: string) => JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString()).sid as string;
  const press = async (userId: number, action: 'disable' | 'revoke_tokens') => {
    const admin = new AdminSession(server.app);
    await admin.get(`/oauth/users/${userId}`);
    expect((await admin.submit(`/oauth/users/${userId}/${action}`, {})).statusCode).toBe(302);
  };

  it('an admin disabling the user: each client holding a token is logged out; without a sid for a client that needs none, one per session for one that does', async () => {
    const user = await newUser();
    const { agent } = await signedInAt(server, user.username, firstClient);
    const one = await signedInAt(server, user.username, secondClient, agent);
    const other = await signedInAt(server, user.username, secondClient);
    await press(user.id, 'disable');

    const toFirst = await claimsOf(await first.next(), firstClient);
    expect(toFirst.sub).toBe(user.subject);
    expect(toFirst).not.toHaveProperty('sid');
    const toSecond = await Promise.all([second.next(), second.next()].map(async (request) => claimsOf(await request, secondClient)));
    expect(toSecond.map((claims) => claims.sid).sort()).toEqual([sidOf(one.idToken), sidOf(other.idToken)].sort());
    expect(toSecond.every((claims) => claims.sub === user.subject)).toBe(true);
    expect(await first.nothingWithin(500)).toBe(true);
    expect(second.requests).toHaveLength(2);
  });

  /** The browser signs in again, as `username`, at the first client's prompt=login. */
  const signInAgain = async (agent: UserAgent, username: string) => {
    const again = authorizeUrl({
      client_id: firstClient.application.uid,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      prompt: 'login',
    });
    expect((await agent.request({ method: 'GET', url: again })).headers.location).toBe('/login');
    expect((await agent.post('/login', { username, password: PASSWORD })).statusCode).toBe(303);
  };

  it('another user signing in over a live session (prompt=login) ends it: the clients signed in during it are told its sid', async () => {
    const user = await newUser();
    const { agent, idToken } = await signedInAt(server, user.username, secondClient);
    await signInAgain(agent, (await newUser()).username);
    const told = await claimsOf(await second.next(), secondClient);
    expect({ sub: told.sub, sid: told.sid }).toEqual({ sub: user.subject, sid: sidOf(idToken) });
    expect(await first.nothingWithin(500)).toBe(true);
  });

  it('the same user signing in again (prompt=login, a step-up) is not logged out of the clients of the session', async () => {
    const user = await newUser();
    const { agent } = await signedInAt(server, user.username, secondClient);
    await signInAgain(agent, user.username);
    expect(await second.nothingWithin(800)).toBe(true);
    expect(await first.nothingWithin(100)).toBe(true);
  });

  it('the same user signing in again goes on in the session: one sid per client before and after, and its sign-out tells the clients of both sign-ins', async () => {
    const user = await newUser();
    const before = await signedInAt(server, user.username, secondClient);
    await signInAgain(before.agent, user.username);
    const after = await signedInAt(server, user.username, secondClient, before.agent);
    expect(sidOf(after.idToken)).toBe(sidOf(before.idToken));
    const atFirst = await signedInAt(server, user.username, firstClient, before.agent);

    expect((await before.agent.post('/logout', {}, '/logout')).statusCode).toBe(303);
    expect((await claimsOf(await first.next(), firstClient)).sid).toBe(sidOf(atFirst.idToken));
    expect((await claimsOf(await second.next(), secondClient)).sid).toBe(sidOf(before.idToken));
    expect(await second.nothingWithin(500)).toBe(true);
  });

  it('"Revoke all tokens" (admin) logs the user out of the clients holding one, and of no other', async () => {
    const user = await newUser();
    await signedInAt(server, user.username, firstClient);
    const before = second.requests.length;
    await press(user.id, 'revoke_tokens');
    expect((await claimsOf(await first.next(), firstClient)).sub).toBe(user.subject);
    expect(await second.nothingWithin(800)).toBe(true);
    expect(second.requests).toHaveLength(before);
  });

  it('the user revoking one application at /oauth/authorized_applications logs them out of that application only', async () => {
    const user = await newUser();
    const { agent } = await signedInAt(server, user.username, firstClient);
    const atSecond = await signedInAt(server, user.username, secondClient, agent);
    const revoke = await (agent as UserAgent).post(
      `/oauth/authorized_applications/${secondClient.application.id}`,
      { _method: 'delete' },
      '/oauth/authorized_applications',
    );
    expect(revoke.statusCode).toBe(302);
    const claims = await claimsOf(await second.next(), secondClient);
    expect(claims).toMatchObject({ sub: user.subject, sid: sidOf(atSecond.idToken) });
    expect(await first.nothingWithin(800)).toBe(true);
  });

  it('a revocation made outside the service (the CLI: no worker in its process) is queued and delivered by the service', async () => {
    const user = await newUser();
    await signedInAt(server, user.username, firstClient);
    // server.deps is the domain without the server's worker, as the CLI's is (users revoke-tokens).
    await revokeUserTokens(server.deps, user);
    const queued = (await deliveryRows(server)).filter((row) => row.subject === user.subject);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ applicationId: firstClient.application.id, sessionId: null });
    // The service's worker finds it at its next poll (every 5 s).
    expect((await claimsOf(await first.next(8_000), firstClient)).sub).toBe(user.subject);
  });

  it('a client whose tokens of the user were all revoked already is not told again', async () => {
    const user = await newUser();
    await signedInAt(server, user.username, firstClient);
    await press(user.id, 'revoke_tokens');
    await first.next();
    await press(user.id, 'disable');
    expect(await first.nothingWithin(800)).toBe(true);
  });
});

describe(`Back-Channel Logout 1.0 with OpenID Connect off (${backend})`, () => {
  it('queues nothing: the settings can be prepared, but no logout token is sent before openid.enabled', async () => {
    const server = await buildAdminServer();
    try {
      const receiver = await backchannelReceiver();
      const client = await relyingParty(server, receiver.url);
      expect(client.application.backchannelLogoutUri).toBe(receiver.url);
      const user = await createUser(server.deps, 'offline-alice');
      await server.deps.stores.accessTokens.create({
        applicationId: client.application.id,
        resourceOwnerId: user.id,
        token: 'a-token-of-alice',
        refreshToken: null,
        expiresIn: 3600,
        scopes: [],
        createdAt: server.deps.now(),
        accessGrantId: null,
        refreshFamily: null,
      });
      await revokeUserTokens(server.deps, user);
      expect(await deliveryRows(server)).toEqual([]);
      expect(await receiver.nothingWithin(300)).toBe(true);
      await receiver.close();
    } finally {
      await server.close();
    }
  });
});
