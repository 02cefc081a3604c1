import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECENT_SIGN_IN_SECONDS } from '../../src/oauth/passkeys/passkeys.js';
import { SoftwareAuthenticator, type Ceremony } from '../../scripts/lib/software-authenticator.js';
import { createUser, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Adding a passkey needs the user's proof, as setting up an authenticator app does (docs/behaviour.md 3.18): a passkey
// signs in alone with the phr acr, so a browser left signed in must not be enough to put someone else's on the
// account. The current password (counted like a sign-in attempt), or, without one, a sign-in of the last few minutes.

const ORIGIN = 'http://127.0.0.1:3000';
const HERE: Ceremony = { origin: ORIGIN, rpId: '127.0.0.1' };
const LIMITS = { maxFailures: 3, windowSeconds: 60, lockoutSeconds: 120, maxUserNamesPerAddress: 10 };

describe(`POST /account/passkeys/options asks for the user's proof (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { baseUrl: ORIGIN, rateLimit: LIMITS } });
  });
  afterAll(() => server.close());

  const postJson = async (browser: UserAgent, url: string, payload: object) =>
    browser.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-csrf-token': await browser.csrfFrom('/account') },
      payload,
    });
  const options = (browser: UserAgent, current?: string) =>
    postJson(browser, '/account/passkeys/options', current === undefined ? {} : { current });
  const finish = (browser: UserAgent, key: SoftwareAuthenticator, ceremony: { challenge: string; user: { id: string } }) =>
    postJson(browser, '/account/passkeys', { name: 'Key', response: key.register(ceremony, HERE) });
  const storedPasskeys = (userId: number) => server.deps.stores.passkeys.listOfUser(userId);
  /** A browser whose sign-in is older than the recent-sign-in window. */
  async function leftSignedIn(username: string) {
    const user = await createUser(server.deps, username);
    const browser = await signedIn(server.app, username);
    server.clock.advance(RECENT_SIGN_IN_SECONDS + 1);
    return { user, browser };
  }

  it('a browser left signed in adds no passkey without the password: 401, no challenge, nothing stored', async () => {
    const { user, browser } = await leftSignedIn('left-open');
    for (const current of [undefined, '']) {
      const refused = await options(browser, current);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({
        error: 'access_denied',
        error_description:
          'Enter your password to add a passkey. If your account has no password, sign out and sign in again, then add it within 5 minutes.',
      });
      expect(refused.json()).not.toHaveProperty('challenge');
    }
    // No options, no ceremony: an answer made up for any challenge finds none.
    const forged = await finish(browser, new SoftwareAuthenticator(), { challenge: 'AAAA', user: { id: 'AAAA' } });
    expect(forged.statusCode).toBe(400);
    expect(await storedPasskeys(user.id)).toEqual([]);
  });

  it('with the current password the passkey is added, however old the sign-in', async () => {
    const { user, browser } = await leftSignedIn('has-password');
    const proved = await options(browser, PASSWORD);
    expect(proved.statusCode).toBe(200);
    expect((await finish(browser, new SoftwareAuthenticator(), proved.json())).statusCode).toBe(201);
    expect(await storedPasskeys(user.id)).toHaveLength(1);
  });

  it('without a password, a sign-in of the last few minutes is the proof (a passkey-only or upstream-only user)', async () => {
    const user = await createUser(server.deps, 'fresh');
    const browser = await signedIn(server.app, 'fresh');
    server.clock.advance(RECENT_SIGN_IN_SECONDS - 10);
    const proved = await options(browser);
    expect(proved.statusCode).toBe(200);
    expect((await finish(browser, new SoftwareAuthenticator(), proved.json())).statusCode).toBe(201);
    expect(await storedPasskeys(user.id)).toHaveLength(1);
  });

  it('a wrong password is 401 and counts like a wrong sign-in: the lockout then refuses even the right one, here and at /login', async () => {
    const { user, browser } = await leftSignedIn('guessed');
    for (let attempt = 0; attempt < LIMITS.maxFailures; attempt++) {
      const wrong = await options(browser, 'not the password');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().error_description).toBe('Your current password is not correct.');
    }
    const locked = await options(browser, PASSWORD);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(locked.json()).toMatchObject({
      error: 'access_denied',
      error_description: expect.stringMatching(/^Too many failed sign-in attempts/),
    });
    const login = await userAgent(server.app).post('/login', { username: 'guessed', password: PASSWORD });
    expect(login.statusCode).toBe(429);
    expect(await storedPasskeys(user.id)).toEqual([]);
  });
});
