import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import type { LoginSessionRecord } from '../../src/oauth/sessions/login-session-store.js';
import { backchannelServer, deliveryRows, relyingParty, signedInAt } from '../helpers/backchannel-logout.js';
import { createUser, csrfTokenIn, signedIn, type UserAgent } from '../helpers/end-user.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';

// Issue 35 item 5: login sessions are rows, listed on /account and ended there from any instance. Two servers on one
// database stand for two instances; each browser is a cookie jar.

describe(`/account sessions (${backend})`, () => {
  let database: TestDatabase;
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    // Servers on one database share its signing keys, so they share the key that encrypts them.
    const env = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    first = await backchannelServer({}, { testDatabase: database, env });
    second = await backchannelServer({}, { testDatabase: database, env });
  });
  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    await database.drop();
  });

  const rowsOf = async (userId: number) =>
    (
      await database.database.sql.query<{ id: number; amr: string[]; ip: string; user_agent: string | null }>(
        'SELECT id, amr, ip, user_agent FROM login_sessions WHERE user_id = $1 ORDER BY id',
        [userId],
      )
    ).map((row) => ({ ...row, id: Number(row.id) }));
  const sessionsOf = (userId: number): Promise<LoginSessionRecord[]> => first.deps.stores.loginSessions.listOfUser(userId, new Date(0));
  const endSession = async (browser: UserAgent, id: number | string) => browser.post(`/account/sessions/${id}/end`, {}, '/account');
  const account = (browser: UserAgent) => browser.request({ method: 'GET', url: '/account' });

  it('POST /login creates a login_sessions row with the user, amr pwd, the address and the user agent', async () => {
    const user = await createUser(first.deps, 'row-maker');
    await signedIn(first.app, 'row-maker');
    const rows = await rowsOf(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amr: ['pwd'], ip: '127.0.0.1', user_agent: 'lightMyRequest' });
  });

  it('GET /account lists every session of the user, marks this device, and is behind sign-in', async () => {
    await createUser(first.deps, 'twice');
    const laptop = await signedIn(first.app, 'twice');
    const phone = await signedIn(second.app, 'twice');
    const page = await account(laptop);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body.match(/id="session_\d+"/g)).toHaveLength(2);
    expect(page.body.match(/\(this device\)/g)).toHaveLength(1);
    expect(page.body).toContain('Sign out this session');
    expect(page.body).toContain('href="/oauth/authorized_applications"');
    expect((await account(phone)).statusCode).toBe(200);
    const anonymous = await first.app.inject({ method: 'GET', url: '/account' });
    expect(anonymous.statusCode).toBe(302);
    expect(anonymous.headers.location).toBe('/login');
  });

  it('the authorized applications page links to /account', async () => {
    await createUser(first.deps, 'linked');
    const browser = await signedIn(first.app, 'linked');
    expect((await browser.request({ method: 'GET', url: '/oauth/authorized_applications' })).body).toContain('href="/account"');
  });

  it('"Sign out this session" on another session signs that browser out at its next request, on another instance too, and queues its back-channel logout', async () => {
    const user = await createUser(first.deps, 'two-devices');
    const client = await relyingParty(first, 'https://rp.example.com/backchannel');
    const laptop = await signedIn(first.app, 'two-devices');
    // The phone signs in to the relying party through the second instance: its session is the one the RP knows.
    const { agent: phone } = await signedInAt(second, 'two-devices', client);
    const [, phoneSession] = await sessionsOf(user.id).then((sessions) => sessions.reverse());
    expect(phoneSession).toBeDefined();

    const ended = await endSession(laptop, phoneSession!.id);
    expect(ended.statusCode).toBe(303);
    expect(ended.headers.location).toBe('/account');
    expect((await account(laptop)).body).toContain('The session has been signed out.');

    const next = await account(phone);
    expect(next.statusCode).toBe(302);
    expect(next.headers.location).toBe('/login');
    expect((await rowsOf(user.id)).map((row) => row.id)).not.toContain(phoneSession!.id);
    const queued = (await deliveryRows(first)).filter((row) => row.applicationId === client.application.id);
    expect(queued.map((row) => row.sessionId)).toEqual([phoneSession!.sessionId]);
    const events = await listAuditEvents(first.deps, { type: 'user.session_ended', limit: 10 });
    expect(events).toMatchObject([{ actor: `user:${user.id}`, userId: user.id, details: { login_session: phoneSession!.id } }]);
  });

  it('"Sign out this session" on the current session is a logout', async () => {
    const user = await createUser(first.deps, 'self-ender');
    const browser = await signedIn(first.app, 'self-ender');
    const [session] = await sessionsOf(user.id);
    const ended = await endSession(browser, session!.id);
    expect(ended.statusCode).toBe(303);
    expect(ended.headers.location).toBe('/login');
    expect(await rowsOf(user.id)).toEqual([]);
    expect((await account(browser)).headers.location).toBe('/login');
  });

  it("another user's session, an unknown or malformed id: 404, nothing ends", async () => {
    const victim = await createUser(first.deps, 'victim');
    await signedIn(first.app, 'victim');
    await createUser(first.deps, 'intruder');
    const intruder = await signedIn(first.app, 'intruder');
    const [victimSession] = await sessionsOf(victim.id);
    for (const id of [String(victimSession!.id), '999999999', 'abc', '0']) {
      const refused = await endSession(intruder, id);
      expect(refused.statusCode, id).toBe(404);
      expect(refused.body).toContain('This session does not exist or has already ended.');
    }
    expect(await rowsOf(victim.id)).toHaveLength(1);
  });

  it('a POST without its CSRF token is refused and ends nothing', async () => {
    const user = await createUser(first.deps, 'csrf-less');
    const laptop = await signedIn(first.app, 'csrf-less');
    await signedIn(first.app, 'csrf-less');
    const [, other] = await sessionsOf(user.id);
    const refused = await laptop.request({ method: 'POST', url: `/account/sessions/${other!.id}/end`, headers: FORM, payload: form({}) });
    expect(refused.statusCode).toBe(403);
    expect(await rowsOf(user.id)).toHaveLength(2);
    expect(csrfTokenIn((await account(laptop)).body)).not.toBeNull();
  });

  it('last_seen_at moves at most once a minute; a session unused for the lifetime is signed out and cleaned up', async () => {
    const user = await createUser(first.deps, 'idle');
    const browser = await signedIn(first.app, 'idle');
    const lastSeen = async () => (await sessionsOf(user.id))[0]!.lastSeenAt.getTime();
    const setLastSeen = (secondsAgo: number) =>
      database.database.sql.query('UPDATE login_sessions SET last_seen_at = $2 WHERE user_id = $1', [
        user.id,
        new Date(first.clock.now.getTime() - secondsAgo * 1000).toISOString(),
      ]);
    await setLastSeen(30);
    const recent = await lastSeen();
    await account(browser);
    expect(await lastSeen()).toBe(recent);
    await setLastSeen(120);
    await account(browser);
    expect(await lastSeen()).toBeGreaterThan(recent);

    await setLastSeen(8 * 3600 + 1);
    expect((await account(browser)).headers.location).toBe('/login');
    const { cleanUpStaleRecords } = await import('../../src/oauth/cleanup/cleanup.js');
    const result = await cleanUpStaleRecords(first.deps, first.clock.now, { batchSize: 100 });
    expect(result.deleted.expired_login_sessions).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(user.id)).toEqual([]);
  });
});
