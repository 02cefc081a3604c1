import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { hasTotp, setMfaPolicy } from '../../src/oauth/second-factor/second-factors.js';
import { SoftwareAuthenticator, type Ceremony } from '../../scripts/lib/software-authenticator.js';
import { authorizeUrl, createClient, createUser, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { codeFlow, openIdServer, verifiedIdToken } from '../helpers/openid.js';
import { enrolFromAccount } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { ADMIN_PASSWORD, AdminSession } from './applications-support.js';

// Issue 35 item 1: a passkey as the second factor after a password. When the second step is asked does not change;
// at /login/second-factor the user's own passkeys pass it, user verification only preferred (the password was the
// knowledge factor), and the sign-in is pwd + hwk/swk, the phishing-resistant acr. And item 5: the admin removes a
// user's passkeys from the Users page (the CLI's reset-passkeys is in cli-users-second-factor.test.ts).

const ORIGIN = 'http://127.0.0.1:3000';
const HERE: Ceremony = { origin: ORIGIN, rpId: '127.0.0.1' };
const PHR = 'urn:oauth-service:acr:phr';
const STEP = '/login/second-factor';

describe(`a passkey as the second factor, and the admin's passkeys reset (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    const admin = { username: 'admin', passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) };
    server = await openIdServer({ config: { baseUrl: ORIGIN, admin } });
  });
  afterAll(() => server.close());

  const postJson = async (browser: UserAgent, url: string, payload: object, csrfPage = STEP) =>
    browser.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-csrf-token': await browser.csrfFrom(csrfPage) },
      payload,
    });

  /** A user with this passkey (registered from /account) whose sign-ins must give a second factor. */
  async function userWithPasskey(username: string, authenticator: SoftwareAuthenticator) {
    const user = await createUser(server.deps, username);
    const browser = await signedIn(server.app, username);
    const options = await postJson(browser, '/account/passkeys/options', {}, '/account');
    const registered = await postJson(
      browser,
      '/account/passkeys',
      { name: 'Key', response: authenticator.register(options.json(), HERE) },
      '/account',
    );
    expect(registered.statusCode).toBe(201);
    await setMfaPolicy(server.deps, user, 'required');
    return user;
  }

  /** A new browser past the password of `username`, at the second step. */
  async function afterPassword(username: string): Promise<UserAgent> {
    const browser = userAgent(server.app);
    const password = await browser.post('/login', { username, password: PASSWORD });
    expect(password.headers.location).toBe(STEP);
    return browser;
  }

  async function passkeyStep(browser: UserAgent, authenticator: SoftwareAuthenticator) {
    const options = await postJson(browser, `${STEP}/passkey/options`, {});
    expect(options.statusCode).toBe(200);
    return {
      options: options.json(),
      answer: await postJson(browser, `${STEP}/passkey`, { response: authenticator.assert(options.json(), HERE) }),
    };
  }

  /** A browser signed in past the second step with `key`. */
  async function signedInPastSecondStep(username: string, key: SoftwareAuthenticator): Promise<UserAgent> {
    const browser = await afterPassword(username);
    expect((await passkeyStep(browser, key)).answer.statusCode).toBe(200);
    return browser;
  }

  const isSignedIn = async (browser: UserAgent) => (await browser.request({ method: 'GET', url: '/account' })).statusCode === 200;

  it('acr_values naming phr: a user with a passkey is asked for it after the password; one without is not sent to set up an app', async () => {
    const client = await createClient(server.deps, { scopes: 'openid' });
    const request = authorizeUrl({
      client_id: client.application.uid,
      redirect_uri: client.application.redirectUris[0]!,
      response_type: 'code',
      scope: 'openid',
      acr_values: PHR,
    });
    const key = new SoftwareAuthenticator();
    const withPasskey = await userWithPasskey('phoebe', key);
    await setMfaPolicy(server.deps, withPasskey, 'optional');
    await createUser(server.deps, 'quentin');
    for (const [username, next] of [
      ['phoebe', STEP],
      ['quentin', request],
    ] as const) {
      const browser = userAgent(server.app);
      expect((await browser.request({ method: 'GET', url: request })).headers.location).toBe('/login');
      expect((await browser.post('/login', { username, password: PASSWORD })).headers.location).toBe(next);
    }
  });

  it('password, then a passkey without user verification: signed in with amr pwd and hwk, the phr acr in the ID token', async () => {
    // A security key without a PIN: present, not verified. Enough after a password; never enough alone.
    const key = new SoftwareAuthenticator({ verifiesUser: false, countsSignatures: true });
    const user = await userWithPasskey('pia', key);
    const browser = await afterPassword('pia');
    const page = await browser.request({ method: 'GET', url: STEP });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="passkey_second_factor"');
    expect(page.body).toContain('Confirm it is you with one of your passkeys.');
    // No authenticator app yet: no code form, and no way to set one up with the password alone.
    expect(page.body).not.toContain('name="code"');
    expect(page.body).not.toContain(`${STEP}/enrol`);
    expect(page.body).toMatch(/<script src="\/assets\/passkeys.js" integrity="sha384-/);

    const { options, answer } = await passkeyStep(browser, key);
    expect(options).toMatchObject({
      rpId: '127.0.0.1',
      userVerification: 'preferred',
      allowCredentials: [{ id: key.id, type: 'public-key' }],
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ redirect: '/oauth/authorized_applications' });
    expect(await isSignedIn(browser)).toBe(true);
    const sessions = await server.deps.stores.loginSessions.listOfUser(user.id, new Date(0));
    expect(sessions.find((session) => session.amr.includes('pwd') && session.amr.includes('hwk'))).toMatchObject({
      amr: ['pwd', 'hwk'],
      acr: PHR,
    });
    expect((await server.deps.stores.passkeys.listOfUser(user.id))[0]!.signCount).toBe(1);
    const signIns = await listAuditEvents(server.deps, { type: 'user.sign_in.succeeded', userId: user.id, limit: 10 });
    expect(signIns.map((event) => event.details)).toContainEqual(expect.objectContaining({ method: 'passkey', amr: ['pwd', 'hwk'] }));

    const client = await createClient(server.deps, { scopes: 'openid' });
    const { response } = await codeFlow(server, browser, client);
    const idToken = await verifiedIdToken(server, response.json<{ id_token: string }>().id_token, client.application.uid);
    expect(idToken).toMatchObject({ amr: ['pwd', 'hwk'], acr: PHR });

    // The same key alone on /login: refused, user verification is required there.
    const alone = userAgent(server.app);
    const aloneOptions = await postJson(alone, '/login/passkey/options', {}, '/login');
    const refused = await postJson(alone, '/login/passkey', { response: key.assert(aloneOptions.json(), HERE) }, '/login');
    expect(refused.statusCode).toBe(401);
    expect(await isSignedIn(alone)).toBe(false);
  });

  it("another user's passkey is refused at the second step, logged and audited; the browser stays half signed in", async () => {
    await userWithPasskey('owen', new SoftwareAuthenticator());
    const strangersKey = new SoftwareAuthenticator();
    const stranger = await userWithPasskey('sam', strangersKey);
    const browser = await afterPassword('owen');
    const { options, answer } = await passkeyStep(browser, strangersKey);
    expect(options.allowCredentials).not.toContainEqual(expect.objectContaining({ id: strangersKey.id }));
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toMatchObject({ error: 'access_denied', error_description: 'This passkey cannot sign you in here.' });
    expect(await isSignedIn(browser)).toBe(false);
    const refusals = await listAuditEvents(server.deps, { type: 'user.passkey.refused', limit: 20 });
    expect(refusals).toContainEqual(
      expect.objectContaining({
        userId: stranger.id,
        details: expect.objectContaining({ reason: 'other_user', credential_id: strangersKey.id }),
      }),
    );
    expect((await server.deps.stores.passkeys.listOfUser(stranger.id))[0]!.lastUsedAt).toBeNull();
    // Still at the second step: the page still answers, not /login.
    expect((await browser.request({ method: 'GET', url: STEP })).statusCode).toBe(200);
  });

  it('the second step refuses a user handle of another user (WebAuthn Level 3 section 7.2 step 6), and takes an absent one', async () => {
    const otherKey = new SoftwareAuthenticator();
    await userWithPasskey('hana', otherKey);
    const key = new SoftwareAuthenticator();
    const user = await userWithPasskey('hugo', key);
    const own = key.userHandle;
    key.userHandle = otherKey.userHandle;
    const browser = await afterPassword('hugo');
    expect((await passkeyStep(browser, key)).answer.statusCode).toBe(401);
    expect(await isSignedIn(browser)).toBe(false);
    const refusals = await listAuditEvents(server.deps, { type: 'user.passkey.refused', userId: user.id, limit: 20 });
    expect(refusals).toContainEqual(
      expect.objectContaining({
        details: expect.objectContaining({ reason: 'verification_failed', detail: "user handle not the credential owner's" }),
      }),
    );
    // The user was identified by the password: a user handle may be left out (an authenticator answering allowCredentials).
    key.userHandle = null;
    expect((await passkeyStep(browser, key)).answer.statusCode).toBe(200);
    expect(await isSignedIn(browser)).toBe(true);
    key.userHandle = own;
  });

  it('a user with an authenticator app and a passkey gets both; the password alone never sets up an app for one with passkeys only', async () => {
    const user = await userWithPasskey('bo', new SoftwareAuthenticator());
    const browser = await afterPassword('bo');
    const step = (await browser.request({ method: 'GET', url: STEP })).body;
    expect(step).toContain('id="passkey_second_factor"');
    expect(step).not.toContain(`href="${STEP}/enrol"`);
    expect(step).not.toContain('id="otpauth_uri"');
    // An address typed in, and a made-up enrolment form: back to the passkey, no secret shown, nothing set up.
    const enrol = await browser.request({ method: 'GET', url: `${STEP}/enrol` });
    expect(enrol.statusCode).toBe(303);
    expect(enrol.headers.location).toBe(STEP);
    const posted = await browser.post(`${STEP}/enrol`, { code: '123456' }, STEP);
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe(STEP);
    expect(await hasTotp(server.deps, user.id)).toBe(false);
    expect(await isSignedIn(browser)).toBe(false);

    await setMfaPolicy(server.deps, user, 'optional');
    await enrolFromAccount(await signedIn(server.app, 'bo'), server.clock.now);
    const both = await afterPassword('bo');
    const page = (await both.request({ method: 'GET', url: STEP })).body;
    expect(page).toContain('name="code"');
    expect(page).toContain('id="passkey_second_factor"');
    expect(page).toContain('Or confirm it is you with one of your passkeys.');
    expect((await both.request({ method: 'GET', url: `${STEP}/enrol` })).headers.location).toBe(STEP);
  });

  it('without a pending sign-in there is no passkey second step: clear 400s, and no CSRF token is 403', async () => {
    const stranger = userAgent(server.app);
    const options = await postJson(stranger, `${STEP}/passkey/options`, {}, '/login');
    expect(options.statusCode).toBe(400);
    expect(options.json()).toMatchObject({
      error: 'invalid_request',
      error_description: 'Your sign-in took too long. Please sign in again.',
    });
    const key = new SoftwareAuthenticator();
    const answer = await postJson(stranger, `${STEP}/passkey`, { response: key.assert({ challenge: 'AAAA' }, HERE) }, '/login');
    expect(answer.statusCode).toBe(400);
    await userWithPasskey('cy', key);
    const browser = await afterPassword('cy');
    // A challenge of the passkey-alone ceremony does not answer the second step's.
    const aloneOptions = await postJson(browser, '/login/passkey/options', {});
    const crossed = await postJson(browser, `${STEP}/passkey`, { response: key.assert(aloneOptions.json(), HERE) });
    expect(crossed.statusCode).toBe(400);
    const noCsrf = await browser.request({
      method: 'POST',
      url: `${STEP}/passkey/options`,
      headers: { 'content-type': 'application/json' },
      payload: {},
    });
    expect(noCsrf.statusCode).toBe(403);
  });

  it("the admin lists a user's passkeys on the Users page and removes them all (confirmed, CSRF, audited); they no longer sign in", async () => {
    const laptop = new SoftwareAuthenticator();
    const phone = new SoftwareAuthenticator({ synced: true });
    const user = await userWithPasskey('lost', laptop);
    const browser = await signedInPastSecondStep('lost', laptop);
    const options = await postJson(browser, '/account/passkeys/options', {}, '/account');
    const added = await postJson(
      browser,
      '/account/passkeys',
      { name: 'Phone', response: phone.register(options.json(), HERE) },
      '/account',
    );
    expect(added.statusCode).toBe(201);

    const session = new AdminSession(server.app);
    const page = (await session.get(`/oauth/users/${user.id}`)).body;
    expect(page).toMatch(/<td[^>]*>Key<\/td>[\s\S]*?<td>Device-bound<\/td>[\s\S]*?<td[^>]*>Phone<\/td>[\s\S]*?<td>Synced<\/td>/);
    expect(page).toContain(`href="/oauth/users/${user.id}/reset_passkeys"`);
    expect(page).not.toContain(laptop.id);
    const confirm = await session.get(`/oauth/users/${user.id}/reset_passkeys`);
    expect(confirm.body).toContain('Remove all 2 passkeys of <strong>lost</strong>?');
    const forged = await server.app.inject({
      method: 'POST',
      url: `/oauth/users/${user.id}/reset_passkeys`,
      headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` },
    });
    expect(forged.statusCode).toBe(403);
    expect(await server.deps.stores.passkeys.listOfUser(user.id)).toHaveLength(2);

    const reset = await session.submit(`/oauth/users/${user.id}/reset_passkeys`, {});
    expect(reset.statusCode).toBe(302);
    expect((await session.get(`/oauth/users/${user.id}`)).body).toContain(
      '2 passkeys removed, and every sign-in of the user ended: the user registers again.',
    );
    expect(await server.deps.stores.passkeys.listOfUser(user.id)).toEqual([]);
    const [event] = await listAuditEvents(server.deps, { type: 'user.passkeys.reset', userId: user.id, limit: 5 });
    expect(event).toMatchObject({ actor: 'admin', details: { removed: 2, passkeys: [{ name: 'Key' }, { name: 'Phone' }] } });
    expect((await session.submit(`/oauth/users/${user.id}/reset_passkeys`, {})).statusCode).toBe(302);
    expect((await session.get(`/oauth/users/${user.id}`)).body).toContain('The user has no passkey.');
    expect(await listAuditEvents(server.deps, { type: 'user.passkeys.reset', userId: user.id, limit: 5 })).toHaveLength(1);
    expect((await session.submit('/oauth/users/999999/reset_passkeys', {})).statusCode).toBe(404);

    // The removed passkeys sign in no more, alone or after the password (which now leads to the app's enrolment).
    const alone = userAgent(server.app);
    const aloneOptions = await postJson(alone, '/login/passkey/options', {}, '/login');
    expect((await postJson(alone, '/login/passkey', { response: phone.assert(aloneOptions.json(), HERE) }, '/login')).statusCode).toBe(401);
    const again = await afterPassword('lost');
    expect((await again.request({ method: 'GET', url: STEP })).body).toContain('id="otpauth_uri"');
  });
});
