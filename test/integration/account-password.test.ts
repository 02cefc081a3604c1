import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { createUser, csrfTokenIn, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

// Issue 35 item 5: a signed-in user changes their password on /account, the current one asked first.

const NEW_PASSWORD = 'a brand new passphrase';
const LIMITS = { maxFailures: 3, windowSeconds: 60, lockoutSeconds: 120, maxUserNamesPerAddress: 10 };

describe(`POST /account/password (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { rateLimit: LIMITS } });
  });
  afterAll(() => server.close());

  const change = (browser: UserAgent, fields: Record<string, string>) => browser.post('/account/password', fields, '/account');
  const hashOf = async (username: string) => (await server.deps.stores.users.findByUsername(username))!.passwordHash;
  const signsIn = async (username: string, password: string) =>
    (await userAgent(server.app).post('/login', { username, password })).statusCode === 303;

  it('with the right current password: the new password signs in, the old one does not, and the change is audited', async () => {
    const user = await createUser(server.deps, 'changer');
    const browser = await signedIn(server.app, 'changer');
    const changed = await change(browser, { current: PASSWORD, password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(changed.statusCode).toBe(303);
    expect(changed.headers.location).toBe('/account');
    expect((await browser.request({ method: 'GET', url: '/account' })).body).toContain('Your password has been changed.');
    expect(await hashOf('changer')).toMatch(/^\$argon2id\$/);
    expect(await signsIn('changer', NEW_PASSWORD)).toBe(true);
    expect(await signsIn('changer', PASSWORD)).toBe(false);
    const events = await listAuditEvents(server.deps, { type: 'user.password_changed', limit: 10 });
    expect(events).toMatchObject([{ actor: `user:${user.id}`, userId: user.id, details: { username: 'changer', via: 'account' } }]);
  });

  it('three changes at once (a double submit, two tabs): one is made, the others are refused as they would be after it', async () => {
    const user = await createUser(server.deps, 'hasty');
    const browser = await signedIn(server.app, 'hasty');
    const _csrf = await browser.csrfFrom('/account');
    const passwords = ['first new password', 'second new password', 'third new password'];
    const answers = await Promise.all(
      passwords.map((password) => browser.post('/account/password', { current: PASSWORD, password, confirmation: password, _csrf })),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 401, 401]);
    const made = passwords[answers.findIndex((answer) => answer.statusCode === 303)]!;
    for (const password of passwords) expect(await signsIn('hasty', password)).toBe(password === made);
    expect(await listAuditEvents(server.deps, { userId: user.id, type: 'user.password_changed', limit: 5 })).toHaveLength(1);
  });

  // Two connections are needed to hold the password change open while the sign-in runs: PostgreSQL only.
  it.runIf(backend === 'postgresql')(
    'a sign-in with the old password that finishes while the password changes makes no session (409): none outlives the change',
    async () => {
      const user = await createUser(server.deps, 'stolen');
      const other = new pg.Client({ connectionString: server.testDatabase.url! });
      await other.connect();
      try {
        await other.query('BEGIN');
        // The change's write (setPasswordHash), not committed yet: the sign-in still reads the old password.
        await other.query("UPDATE users SET password_hash = 'changed meanwhile' WHERE id = $1", [user.id]);
        const thief = userAgent(server.app);
        const signIn = thief.post('/login', { username: 'stolen', password: PASSWORD });
        await sleep(500);
        await other.query('COMMIT');
        const answered = await signIn;
        expect(answered.statusCode).toBe(409);
        expect(answered.body).toContain(
          'Your account changed while you were signing in (its password, or the account itself). Sign in again.',
        );
        expect((await thief.request({ method: 'GET', url: '/account' })).headers.location).toBe('/login');
      } finally {
        await other.end();
      }
      expect(await server.deps.stores.loginSessions.listOfUser(user.id, new Date(0))).toEqual([]);
    },
  );

  it('pages loaded at once right after the sign-in (tabs) each have a form that is taken: one CSRF secret, made at the sign-in', async () => {
    await createUser(server.deps, 'tabby');
    const browser = await signedIn(server.app, 'tabby');
    const pages = await Promise.all([1, 2, 3].map(() => browser.request({ method: 'GET', url: '/account' })));
    const tokens = pages.map((page) => csrfTokenIn(page.body)!);
    for (const _csrf of tokens) {
      const answer = await browser.post('/account/password', {
        current: 'not my password',
        password: NEW_PASSWORD,
        confirmation: NEW_PASSWORD,
        _csrf,
      });
      // The password's refusal, not the form's (403 "This form has expired").
      expect(answer.statusCode).toBe(401);
    }
  });

  it('"Sign out my other sessions" ends the other sessions of the user, and only with the box ticked', async () => {
    await createUser(server.deps, 'moving-on');
    const laptop = await signedIn(server.app, 'moving-on');
    const phone = await signedIn(server.app, 'moving-on');
    const account = (browser: UserAgent) => browser.request({ method: 'GET', url: '/account' });
    const kept = await change(laptop, { current: PASSWORD, password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(kept.statusCode).toBe(303);
    expect((await account(phone)).statusCode).toBe(200);
    const fields = { current: NEW_PASSWORD, password: PASSWORD, confirmation: PASSWORD, sign_out_others: '1' };
    expect((await change(laptop, fields)).statusCode).toBe(303);
    expect((await account(laptop)).body).toContain('Your password has been changed. 1 other session was signed out.');
    expect((await account(phone)).headers.location).toBe('/login');
  });

  it('with a wrong current password: 401 and a clear message, nothing changed', async () => {
    await createUser(server.deps, 'forgetful');
    const browser = await signedIn(server.app, 'forgetful');
    const before = await hashOf('forgetful');
    const refused = await change(browser, { current: 'not my password', password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('Your current password is not correct.');
    expect(await hashOf('forgetful')).toBe(before);
  });

  it('a new password the rules refuse, or a confirmation that differs: 422 with the field error, nothing changed', async () => {
    await createUser(server.deps, 'sloppy');
    const browser = await signedIn(server.app, 'sloppy');
    const before = await hashOf('sloppy');
    const short = await change(browser, { current: PASSWORD, password: 'short', confirmation: 'short' });
    expect(short.statusCode).toBe(422);
    expect(short.body).toContain('The new password is too short: it needs at least 8 characters and has 5.');
    const mismatch = await change(browser, { current: PASSWORD, password: NEW_PASSWORD, confirmation: 'something else' });
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.body).toContain('The two new passwords do not match.');
    const blank = await change(browser, { password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(blank.statusCode).toBe(422);
    expect(blank.body).toContain('Enter your current password.');
    expect(await hashOf('sloppy')).toBe(before);
  });

  it("the form's messages are in the page's language (Accept-Language), the password rules' too", async () => {
    await createUser(server.deps, 'sprachlich');
    const browser = await signedIn(server.app, 'sprachlich');
    const inGerman = async (fields: Record<string, string>) =>
      browser.request({
        method: 'POST',
        url: '/account/password',
        headers: { ...FORM, 'accept-language': 'de' },
        payload: form({ ...fields, _csrf: await browser.csrfFrom('/account') }),
      });
    const short = await inGerman({ current: PASSWORD, password: 'kurz', confirmation: 'kurz' });
    expect(short.statusCode).toBe(422);
    expect(short.body).toContain('Das neue Passwort ist zu kurz: Es braucht mindestens 8 Zeichen und hat 4.');
    expect(short.body).not.toContain('too short');
    const mismatch = await inGerman({ current: '', password: NEW_PASSWORD, confirmation: 'etwas anderes' });
    expect(mismatch.body).toContain('Geben Sie Ihr aktuelles Passwort ein.');
    expect(mismatch.body).toContain('Die beiden neuen Passwörter stimmen nicht überein.');
    const wrong = await inGerman({ current: 'falsch', password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Ihr aktuelles Passwort ist nicht richtig.');
  });

  it('wrong current passwords count as failed sign-ins: the lockout then holds on the form and at /login', async () => {
    await createUser(server.deps, 'guessed');
    const browser = await signedIn(server.app, 'guessed');
    for (let i = 0; i < LIMITS.maxFailures; i++) {
      expect((await change(browser, { current: `guess ${i}`, password: NEW_PASSWORD, confirmation: NEW_PASSWORD })).statusCode).toBe(401);
    }
    const locked = await change(browser, { current: PASSWORD, password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toMatch(/^\d+$/);
    expect((await userAgent(server.app).post('/login', { username: 'guessed', password: PASSWORD })).statusCode).toBe(429);
  });

  it('without its CSRF token, or without a session: refused, nothing changed', async () => {
    await createUser(server.deps, 'targeted');
    const browser = await signedIn(server.app, 'targeted');
    const before = await hashOf('targeted');
    const payload = form({ current: PASSWORD, password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    const noCsrf = await browser.request({ method: 'POST', url: '/account/password', headers: FORM, payload });
    expect(noCsrf.statusCode).toBe(403);
    const anonymous = await server.app.inject({ method: 'POST', url: '/account/password', headers: FORM, payload });
    expect(anonymous.statusCode).toBe(401);
    expect(await hashOf('targeted')).toBe(before);
  });
});
