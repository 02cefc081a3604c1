import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableUser, enableUser, resetUserPassword } from '../../src/oauth/users/users.js';
import { createUser, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { codeAt, enrolFromAccount, secondStep } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// A change to the account made while its user is half signed in (the password given, the second step not yet) ends
// that sign-in as it ends the finished ones: the right code afterwards does not sign in with the old password, nor
// after a Disable that an Enable undid. Found by a black-box probe: the pending sign-in kept only the user's id.

const STEP = '/login/second-factor';
const NEW_PASSWORD = 'a brand new passphrase';

describe(`the account changing during the second step (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  /** A user with an authenticator app, a browser of theirs signed in, and another one half signed in. */
  interface HalfSignedIn {
    secret: string;
    owner: UserAgent;
    other: UserAgent;
    /** The code form's CSRF token, read before the change (the page itself sends the browser back to /login after it). */
    csrf: string;
  }
  async function halfSignedIn(username: string): Promise<HalfSignedIn> {
    await createUser(server.deps, username);
    const owner = await signedIn(server.app, username);
    const { secret } = await enrolFromAccount(owner, server.clock.now);
    server.clock.advance(30);
    const other = userAgent(server.app);
    expect((await other.post('/login', { username, password: PASSWORD })).headers.location).toBe(STEP);
    return { secret, owner, other, csrf: await other.csrfFrom(STEP) };
  }
  const codeOf = async ({ other, secret, csrf }: HalfSignedIn) =>
    other.post(STEP, { _csrf: csrf, code: await codeAt(secret, server.clock.now) });

  /** The right code no longer signs the half-signed-in browser in: back to /login, told why. */
  async function expectEnded(half: HalfSignedIn) {
    const browser = half.other;
    const late = await codeOf(half);
    expect(late.statusCode).toBe(303);
    expect(late.headers.location).toBe('/login');
    expect((await browser.request({ method: 'GET', url: '/login' })).body).toContain(
      'Your account changed while you were signing in. Please sign in again.',
    );
    expect((await browser.request({ method: 'GET', url: '/account' })).headers.location).toBe('/login');
  }

  it('the owner changes the password, signing out the other sessions: the half-signed-in browser is not signed in', async () => {
    const half = await halfSignedIn('changing');
    const fields = { current: PASSWORD, password: NEW_PASSWORD, confirmation: NEW_PASSWORD, sign_out_others: '1' };
    expect((await half.owner.post('/account/password', fields, '/account')).statusCode).toBe(303);
    await expectEnded(half);
  });

  it('an admin resets the password: the sign-in begun with the old one is not finished', async () => {
    const half = await halfSignedIn('reset');
    const user = (await server.deps.stores.users.findByUsername('reset'))!;
    expect(await resetUserPassword(server.deps, user, NEW_PASSWORD)).toBe(true);
    await expectEnded(half);
  });

  it('an admin disables, then enables the user: the sign-in begun before is not finished', async () => {
    const half = await halfSignedIn('paused');
    const user = (await server.deps.stores.users.findByUsername('paused'))!;
    const disabled = await disableUser(server.deps, user);
    expect(await enableUser(server.deps, disabled!.user)).not.toBeNull();
    await expectEnded(half);
  });

  it('nothing changed: the right code signs in, and a sign-in that took too long still says so', async () => {
    const steady = await halfSignedIn('steady');
    expect((await secondStep(steady.other, await codeAt(steady.secret, server.clock.now))).statusCode).toBe(303);
    expect((await steady.other.request({ method: 'GET', url: '/account' })).statusCode).toBe(200);
    const slow = await halfSignedIn('slow');
    server.clock.advance(6 * 60);
    expect((await codeOf(slow)).headers.location).toBe('/login');
    expect((await slow.other.request({ method: 'GET', url: '/login' })).body).toContain(
      'Your sign-in took too long. Please sign in again.',
    );
  });
});
