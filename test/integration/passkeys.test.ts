import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { disableUser } from '../../src/oauth/users/users.js';
import { createUser, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { storedPasskey } from '../helpers/second-factor.js';
import { runtimeMakesMlDsaKeys, SoftwareAuthenticator, type Ceremony } from '../../scripts/lib/software-authenticator.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 35 item 1: passkeys registered from /account and signing in alone on /login, through the real ceremonies
// (@simplewebauthn/server) with an authenticator made in the test, which can also lie as a browser would not.

const ORIGIN = 'http://127.0.0.1:3000';
const HERE: Ceremony = { origin: ORIGIN, rpId: '127.0.0.1' };
const PHR = 'urn:oauth-service:acr:phr';

describe(`passkeys (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { baseUrl: ORIGIN } });
  });
  afterAll(() => server.close());

  const postJson = async (browser: UserAgent, url: string, csrfPage: string, payload: object) =>
    browser.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-csrf-token': await browser.csrfFrom(csrfPage) },
      payload,
    });

  /** Registers `authenticator` for the signed-in `browser`; the server's answer. */
  async function register(browser: UserAgent, authenticator: SoftwareAuthenticator, name = 'Laptop', ceremony = HERE) {
    const options = await postJson(browser, '/account/passkeys/options', '/account', {});
    expect(options.statusCode).toBe(200);
    return postJson(browser, '/account/passkeys', '/account', { name, response: authenticator.register(options.json(), ceremony) });
  }

  /** Signs a new browser in with `authenticator` alone; the browser and the server's answer. */
  async function signInWith(authenticator: SoftwareAuthenticator, ceremony = HERE, counter?: number) {
    const browser = userAgent(server.app);
    const options = await postJson(browser, '/login/passkey/options', '/login', {});
    expect(options.statusCode).toBe(200);
    expect(options.json()).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required' });
    expect(options.json().allowCredentials ?? []).toEqual([]);
    const answer = await postJson(browser, '/login/passkey', '/login', {
      response: authenticator.assert(options.json(), ceremony, counter),
    });
    return { browser, answer };
  }

  const isSignedIn = async (browser: UserAgent) => (await browser.request({ method: 'GET', url: '/account' })).statusCode === 200;
  const storedPasskeys = async (userId: number) => server.deps.stores.passkeys.listOfUser(userId);
  const refusals = async (reason: string) =>
    (await listAuditEvents(server.deps, { type: 'user.passkey.refused', limit: 50 })).filter(
      (event) => (event.details as { reason: string }).reason === reason,
    );

  it('POST /account/passkeys registers a discoverable passkey; POST /login/passkey then signs in with it alone, amr hwk and the phr acr', async () => {
    const user = await createUser(server.deps, 'passkey-owner');
    const laptop = await signedIn(server.app, 'passkey-owner');
    const options = await postJson(laptop, '/account/passkeys/options', '/account', {});
    expect(options.json()).toMatchObject({
      rp: { id: '127.0.0.1', name: 'oauth-service' },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
    const authenticator = new SoftwareAuthenticator({ countsSignatures: true });
    const registered = await postJson(laptop, '/account/passkeys', '/account', {
      name: 'Work laptop',
      response: authenticator.register(options.json(), HERE),
    });
    expect(registered.statusCode).toBe(201);
    const [stored] = await storedPasskeys(user.id);
    expect(stored).toMatchObject({
      credentialId: authenticator.id,
      name: 'Work laptop',
      signCount: 0,
      deviceType: 'singleDevice',
      lastUsedAt: null,
    });
    const page = (await laptop.request({ method: 'GET', url: '/account' })).body;
    expect(page).toContain('The passkey Work laptop has been added.');
    expect(page).toContain('Bound to one device');
    // A second registration lists the first in excludeCredentials, so the authenticator does not make a twin.
    const again = await postJson(laptop, '/account/passkeys/options', '/account', {});
    expect(again.json().excludeCredentials).toEqual([{ id: authenticator.id, type: 'public-key', transports: ['internal'] }]);

    const { browser, answer } = await signInWith(authenticator);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ redirect: '/oauth/authorized_applications' });
    expect(await isSignedIn(browser)).toBe(true);
    const [session] = await server.deps.stores.loginSessions
      .listOfUser(user.id, new Date(0))
      .then((all) => all.filter((s) => s.amr.includes('hwk')));
    expect(session).toMatchObject({ amr: ['hwk', 'mfa'], acr: PHR });
    const [used] = await storedPasskeys(user.id);
    expect(used!.signCount).toBe(1);
    expect(used!.lastUsedAt).toBeInstanceOf(Date);
    const signIns = await listAuditEvents(server.deps, { type: 'user.sign_in.succeeded', userId: user.id, limit: 10 });
    expect(signIns.some((event) => (event.details as { method?: string }).method === 'passkey')).toBe(true);
    expect(await listAuditEvents(server.deps, { type: 'user.passkey.registered', userId: user.id, limit: 10 })).toHaveLength(1);
  });

  it('a synced passkey (backup eligible and backed up) signs in with amr swk', async () => {
    const user = await createUser(server.deps, 'synced-owner');
    const authenticator = new SoftwareAuthenticator({ synced: true });
    expect((await register(await signedIn(server.app, 'synced-owner'), authenticator, 'Phone')).statusCode).toBe(201);
    expect((await storedPasskeys(user.id))[0]).toMatchObject({ deviceType: 'multiDevice', backedUp: true, backupEligible: true });
    const { answer, browser } = await signInWith(authenticator);
    expect(answer.statusCode).toBe(200);
    expect(await isSignedIn(browser)).toBe(true);
    const sessions = await server.deps.stores.loginSessions.listOfUser(user.id, new Date(0));
    expect(sessions.some((session) => session.amr[0] === 'swk' && session.acr === PHR)).toBe(true);
  });

  it('a counter regression is refused and audited, and the stored counter stays', async () => {
    const user = await createUser(server.deps, 'cloned');
    const authenticator = new SoftwareAuthenticator({ countsSignatures: true });
    await register(await signedIn(server.app, 'cloned'), authenticator);
    expect((await signInWith(authenticator)).answer.statusCode).toBe(200);
    expect((await signInWith(authenticator)).answer.statusCode).toBe(200);
    const { answer, browser } = await signInWith(authenticator, HERE, 1);
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toMatchObject({ error: 'access_denied', error_description: 'This passkey cannot sign you in here.' });
    expect(await isSignedIn(browser)).toBe(false);
    expect((await storedPasskeys(user.id))[0]!.signCount).toBe(2);
    expect(await refusals('counter_regression')).toEqual([expect.objectContaining({ userId: user.id })]);
  });

  it('an assertion made for another origin or another rp id is refused and audited; nothing signs in', async () => {
    const user = await createUser(server.deps, 'phished');
    const authenticator = new SoftwareAuthenticator();
    await register(await signedIn(server.app, 'phished'), authenticator);
    for (const ceremony of [
      { origin: 'https://evil.example', rpId: HERE.rpId },
      { origin: ORIGIN, rpId: 'evil.example' },
    ]) {
      const { answer, browser } = await signInWith(authenticator, ceremony);
      expect(answer.statusCode).toBe(401);
      expect(await isSignedIn(browser)).toBe(false);
    }
    const failed = await refusals('verification_failed');
    const details = failed.filter((event) => event.userId === user.id).map((event) => (event.details as { detail: string }).detail);
    expect(details).toEqual(expect.arrayContaining([expect.stringMatching(/origin/i), expect.stringMatching(/RP ID/i)]));
    expect((await storedPasskeys(user.id))[0]!.lastUsedAt).toBeNull();
  });

  it('a registration from another origin or for another rp id is refused and stores nothing', async () => {
    const user = await createUser(server.deps, 'careful');
    const browser = await signedIn(server.app, 'careful');
    for (const ceremony of [
      { origin: 'https://evil.example', rpId: HERE.rpId },
      { origin: ORIGIN, rpId: 'evil.example' },
    ]) {
      const refused = await register(browser, new SoftwareAuthenticator(), 'Bad', ceremony);
      expect(refused.statusCode).toBe(400);
      // The page's sentence, in its language; which check failed is for the log (the library's English).
      expect(refused.json()).toMatchObject({ error: 'invalid_request', error_description: 'The passkey could not be added.' });
    }
    expect(await storedPasskeys(user.id)).toEqual([]);
  });

  it('a new passkey may use EdDSA, ES256 or RS256, in that order, whatever the Node.js (never an ML-DSA the runtime may lack)', async () => {
    await createUser(server.deps, 'algorithms');
    const options = await postJson(await signedIn(server.app, 'algorithms'), '/account/passkeys/options', '/account', {});
    expect(options.json().pubKeyCredParams).toEqual([
      { alg: -8, type: 'public-key' },
      { alg: -7, type: 'public-key' },
      { alg: -257, type: 'public-key' },
    ]);
  });

  it.skipIf(!runtimeMakesMlDsaKeys())(
    'ML-DSA-44 (a Node.js that has it): a new one is refused; one an earlier version registered signs in with its 2,420-byte signature',
    async () => {
      const user = await createUser(server.deps, 'post-quantum');
      const authenticator = new SoftwareAuthenticator({ algorithm: 'ML-DSA-44' });
      const refused = await register(await signedIn(server.app, 'post-quantum'), authenticator);
      expect(refused.statusCode).toBe(400);
      expect(await storedPasskeys(user.id)).toEqual([]);
      // As a version that offered ML-DSA-44 on Node.js 24 stored it.
      const stored = {
        ...storedPasskey(user.id, authenticator.id, 'Post-quantum'),
        publicKey: authenticator.coseKey().toString('base64url'),
      };
      await server.deps.stores.passkeys.create(stored, new Date());
      const { answer, browser } = await signInWith(authenticator);
      expect(answer.statusCode).toBe(200);
      expect(await isSignedIn(browser)).toBe(true);
    },
  );

  it('an unknown credential is refused and audited; a challenge is used once; no ceremony, no sign-in', async () => {
    const { answer } = await signInWith(new SoftwareAuthenticator());
    expect(answer.statusCode).toBe(401);
    expect(await refusals('unknown_credential')).not.toHaveLength(0);

    await createUser(server.deps, 'replayed');
    const authenticator = new SoftwareAuthenticator();
    await register(await signedIn(server.app, 'replayed'), authenticator);
    const browser = userAgent(server.app);
    const options = (await postJson(browser, '/login/passkey/options', '/login', {})).json();
    const assertion = authenticator.assert(options, HERE);
    expect((await postJson(browser, '/login/passkey', '/login', { response: assertion })).statusCode).toBe(200);
    const replay = userAgent(server.app);
    expect((await postJson(replay, '/login/passkey', '/login', { response: assertion })).statusCode).toBe(400);
    expect(await isSignedIn(replay)).toBe(false);
  });

  it('a captured answer sent again with its cookie as it was is refused: the challenge is recorded as used, for passkeys that keep no counter', async () => {
    await createUser(server.deps, 'captured');
    const synced = new SoftwareAuthenticator({ synced: true });
    await register(await signedIn(server.app, 'captured'), synced);
    const browser = userAgent(server.app);
    const options = (await postJson(browser, '/login/passkey/options', '/login', {})).json();
    const csrf = await browser.csrfFrom('/login');
    // What a proxy log or a HAR file keeps of the request: its cookie and its body.
    const captured = {
      method: 'POST' as const,
      url: '/login/passkey',
      headers: {
        'content-type': 'application/json',
        'x-csrf-token': csrf,
        cookie: [...browser.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; '),
      },
      payload: { response: synced.assert(options, HERE) },
    };
    expect((await server.app.inject(captured)).statusCode).toBe(200);
    const replayed = await server.app.inject(captured);
    expect(replayed.statusCode).toBe(400);
    expect(await isSignedIn(userAgentWith(replayed))).toBe(false);
  });

  /** A browser holding the cookies an answer set. */
  const userAgentWith = (response: { cookies: Array<{ name: string; value: string }> }) => {
    const agent = userAgent(server.app);
    for (const { name, value } of response.cookies) agent.cookies.set(name, value);
    return agent;
  };

  it("POST /login/passkey refuses a user handle that is not the credential owner's, or none (WebAuthn Level 3 section 7.2 step 6)", async () => {
    const alice = await createUser(server.deps, 'handle-alice');
    const aliceKey = new SoftwareAuthenticator();
    await register(await signedIn(server.app, 'handle-alice'), aliceKey);
    const bob = await createUser(server.deps, 'handle-bob');
    const bobKey = new SoftwareAuthenticator();
    await register(await signedIn(server.app, 'handle-bob'), bobKey);
    const bobsHandle = bobKey.userHandle;
    expect(Buffer.from(bobsHandle!, 'base64url').toString()).toBe(bob.subject);

    for (const handle of [aliceKey.userHandle, null]) {
      bobKey.userHandle = handle;
      const { answer, browser } = await signInWith(bobKey);
      expect(answer.statusCode).toBe(401);
      expect(answer.json()).toMatchObject({ error: 'access_denied', error_description: 'This passkey cannot sign you in here.' });
      expect(await isSignedIn(browser)).toBe(false);
    }
    const details = (await refusals('verification_failed'))
      .filter((event) => event.userId === bob.id)
      .map((event) => (event.details as { detail: string }).detail);
    expect(details).toEqual(expect.arrayContaining(["user handle not the credential owner's", 'user handle missing']));
    expect((await storedPasskeys(bob.id))[0]!.lastUsedAt).toBeNull();
    expect((await storedPasskeys(alice.id))[0]!.lastUsedAt).toBeNull();

    bobKey.userHandle = bobsHandle;
    expect((await signInWith(bobKey)).answer.statusCode).toBe(200);
  });

  it('a disabled user cannot sign in with their passkey', async () => {
    const user = await createUser(server.deps, 'disabled-owner');
    const authenticator = new SoftwareAuthenticator();
    await register(await signedIn(server.app, 'disabled-owner'), authenticator);
    await disableUser(server.deps, user);
    const { answer, browser } = await signInWith(authenticator);
    expect(answer.statusCode).toBe(401);
    expect(await isSignedIn(browser)).toBe(false);
    expect(await refusals('user_disabled')).toEqual([expect.objectContaining({ userId: user.id })]);
  });

  it("rename and remove: only the user's own passkeys; another user's is 404 and stays; a blank name is said at its field", async () => {
    const owner = await createUser(server.deps, 'keeper');
    const ownerBrowser = await signedIn(server.app, 'keeper');
    await register(ownerBrowser, new SoftwareAuthenticator(), 'Key');
    const [passkey] = await storedPasskeys(owner.id);
    await createUser(server.deps, 'intruder');
    const intruder = await signedIn(server.app, 'intruder');
    expect((await intruder.post(`/account/passkeys/${passkey!.id}/remove`, {}, '/account')).statusCode).toBe(404);
    expect((await intruder.post(`/account/passkeys/${passkey!.id}/rename`, { name: 'Mine' }, '/account')).statusCode).toBe(404);
    expect(await storedPasskeys(owner.id)).toEqual([expect.objectContaining({ id: passkey!.id, name: 'Key' })]);

    expect((await intruder.post(`/account/passkeys/${passkey!.id}/rename`, { name: '  ' }, '/account')).statusCode).toBe(404);
    // A blank name: the account page again, the message at that passkey's field (not an error page).
    const blank = await ownerBrowser.post(`/account/passkeys/${passkey!.id}/rename`, { name: '  ' }, '/account');
    expect(blank.statusCode).toBe(422);
    expect(blank.body).toContain(
      `<p class="error" role="alert" id="passkey_name_${passkey!.id}_error">A passkey name has 1 to 64 characters.</p>`,
    );
    expect(blank.body).toMatch(
      new RegExp(
        `id="passkey_name_${passkey!.id}"[^>]*aria-invalid="true" aria-describedby="passkey_name_${passkey!.id}_error" autofocus>`,
      ),
    );
    expect((await storedPasskeys(owner.id))[0]!.name).toBe('Key');
    expect((await ownerBrowser.post(`/account/passkeys/${passkey!.id}/rename`, { name: 'YubiKey' }, '/account')).statusCode).toBe(303);
    expect((await storedPasskeys(owner.id))[0]!.name).toBe('YubiKey');
    const removed = await ownerBrowser.post(`/account/passkeys/${passkey!.id}/remove`, {}, '/account');
    expect(removed.statusCode).toBe(303);
    expect((await ownerBrowser.request({ method: 'GET', url: '/account' })).body).toContain('The passkey YubiKey has been removed.');
    expect(await storedPasskeys(owner.id)).toEqual([]);
    expect(await listAuditEvents(server.deps, { type: 'user.passkey.removed', userId: owner.id, limit: 10 })).toHaveLength(1);
  });

  it('bad input: a malformed answer, a blank name, a missing CSRF token are clear 4xx errors, never a 500', async () => {
    await createUser(server.deps, 'clumsy');
    const browser = await signedIn(server.app, 'clumsy');
    const malformed = await postJson(browser, '/account/passkeys', '/account', { name: 'X', response: { id: 'not base64url!' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe('invalid_request');
    const blank = await register(browser, new SoftwareAuthenticator(), ' ');
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error_description).toBe('A passkey name has 1 to 64 characters.');
    const garbage = {
      id: 'abc',
      rawId: 'abc',
      type: 'public-key',
      response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
    };
    const stranger = userAgent(server.app);
    expect((await postJson(stranger, '/login/passkey', '/login', { response: garbage })).statusCode).toBe(400);
    const noCsrf = await browser.request({
      method: 'POST',
      url: '/account/passkeys/options',
      headers: { 'content-type': 'application/json' },
      payload: {},
    });
    expect(noCsrf.statusCode).toBe(403);
  });

  it('the login page offers passkeys: autofill in the user name field, and both scripts same-origin with matching SRI', async () => {
    // A domain: browsers run no WebAuthn ceremony for an IP address, so at ORIGIN (127.0.0.1) the page offers none.
    expect((await server.app.inject({ method: 'GET', url: '/login' })).body).not.toContain('<script src="/assets/passkeys.js"');
    const named = await buildTestServer({ config: { baseUrl: 'http://localhost:3000' } });
    try {
      const page = await named.app.inject({ method: 'GET', url: '/login' });
      expect(page.body).toContain('autocomplete="username webauthn"');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      const scripts = [...page.body.matchAll(/<script src="([^"]+)" integrity="(sha384-[^"]+)"/g)];
      expect(scripts.map(([, src]) => src)).toEqual([
        expect.stringMatching(/^\/assets\/simplewebauthn-browser-14\.\d+\.\d+\.umd\.min\.js$/),
        '/assets/passkeys.js',
      ]);
      for (const [, src, integrity] of scripts) {
        const file = await named.app.inject({ method: 'GET', url: src! });
        expect(file.statusCode).toBe(200);
        expect(file.headers['content-type']).toContain('javascript');
        const { createHash } = await import('node:crypto');
        expect(`sha384-${createHash('sha384').update(file.rawPayload).digest('base64')}`).toBe(integrity);
      }
    } finally {
      await named.close();
    }
  });
});
