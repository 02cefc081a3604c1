import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMfaPolicy } from '../../src/oauth/second-factor/second-factors.js';
import { createUser, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { codeAt, enrolFromAccount, secondStep, storedPasskey } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// "Cancel" on the second step (/login/second-factor) ends the half-signed-in state: a code sent afterwards does not
// complete that sign-in. It is a form (POST, CSRF token), as a change to the session must be.

const STEP = '/login/second-factor';
const CANCEL = `${STEP}/cancel`;

describe(`cancelling the second step (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  async function afterPassword(username: string): Promise<UserAgent> {
    const browser = userAgent(server.app);
    expect((await browser.post('/login', { username, password: PASSWORD })).headers.location).toBe(STEP);
    return browser;
  }
  const isSignedIn = async (browser: UserAgent) => (await browser.request({ method: 'GET', url: '/account' })).statusCode === 200;

  it('Cancel posts to /login/second-factor/cancel; afterwards a right code no longer signs in', async () => {
    await createUser(server.deps, 'quitter');
    const { secret } = await enrolFromAccount(await signedIn(server.app, 'quitter'), server.clock.now);
    server.clock.advance(30);
    const browser = await afterPassword('quitter');
    const page = await browser.request({ method: 'GET', url: STEP });
    expect(page.body).toContain(`formaction="${CANCEL}"`);
    expect(page.body).not.toMatch(/<a href="\/login">Cancel<\/a>/);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const cancelled = await browser.post(CANCEL, { _csrf: csrf, code: '' });
    expect(cancelled.statusCode).toBe(303);
    expect(cancelled.headers.location).toBe('/login');
    const late = await browser.post(STEP, { _csrf: csrf, code: await codeAt(secret, server.clock.now) });
    expect(late.statusCode).toBe(303);
    expect(late.headers.location).toBe('/login');
    expect(await isSignedIn(browser)).toBe(false);
    // The next attempt starts with the password again, and passes.
    const again = await afterPassword('quitter');
    expect((await secondStep(again, await codeAt(secret, server.clock.now))).statusCode).toBe(303);
    expect(await isSignedIn(again)).toBe(true);
  });

  it('the passkey-only page and the enrolment of a sign-in cancel by a form too, and the passkey step ends with it', async () => {
    const user = await createUser(server.deps, 'keyholder');
    await server.deps.stores.passkeys.create(storedPasskey(user.id), server.clock.now);
    await setMfaPolicy(server.deps, user, 'required');
    const browser = await afterPassword('keyholder');
    const page = (await browser.request({ method: 'GET', url: STEP })).body;
    expect(page).toMatch(new RegExp(`<form method="post" action="${CANCEL}">`));
    // The enrolment a sign-in asks of a user with no second factor at all.
    const newcomer = await createUser(server.deps, 'newcomer');
    await setMfaPolicy(server.deps, newcomer, 'required');
    const enrol = (await (await afterPassword('newcomer')).request({ method: 'GET', url: STEP })).body;
    expect(enrol).toContain('id="otpauth_uri"');
    expect(enrol).toContain(`formaction="${CANCEL}"`);
    expect((await browser.post(CANCEL, {}, STEP)).headers.location).toBe('/login');
    const options = await browser.request({
      method: 'POST',
      url: `${STEP}/passkey/options`,
      headers: { 'content-type': 'application/json', 'x-csrf-token': await browser.csrfFrom('/login') },
      payload: {},
    });
    expect(options.statusCode).toBe(400);
    expect((await browser.request({ method: 'GET', url: STEP })).headers.location).toBe('/login');
  });
});
