import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { createClient, createUser, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { codeFlow, openIdServer, verifiedIdToken } from '../helpers/openid.js';
import { codeAt, enrolFromAccount, recoveryCodesOnPage, secondStep, secretOnPage } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { ADMIN_PASSWORD, AdminSession } from './applications-support.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 35 item 2: TOTP (RFC 6238) as a second factor. Enrolment on the account page, the second step of /login, codes
// accepted once per time step on every instance, recovery codes once each, wrong codes limited like passwords, the
// policy that makes a user enrol, and acr_values asking for mfa on a password-only session.

const MFA = 'urn:oauth-service:acr:mfa';
const STEP = 30;
const STRICT_CLIENT = 'strict-app';
const LIMITS = { maxFailures: 3, windowSeconds: 60, lockoutSeconds: 120, maxUserNamesPerAddress: 10 };

describe(`TOTP second factor (${backend})`, () => {
  let server: TestServer;
  let other: TestServer;
  let client: Awaited<ReturnType<typeof createClient>>;
  beforeAll(async () => {
    const env = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    const admin = { username: 'admin', passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) };
    server = await openIdServer({ config: { rateLimit: LIMITS, admin }, env });
    // A second instance on the same database (and KEY_ENCRYPTION_KEY), for what must hold on every instance.
    // It also requires a second factor for sign-ins that authorize STRICT_CLIENT (authentication.requireSecondFactor).
    const authentication = { requireSecondFactor: [STRICT_CLIENT] };
    other = await openIdServer({ testDatabase: server.testDatabase, config: { rateLimit: LIMITS, authentication }, env });
    client = await createClient(server.deps, { scopes: 'openid' });
  });
  afterAll(async () => {
    await other.close();
    await server.close();
  });

  /** Moves both instances' clocks to the next time step (the enrolment's code used the current one). */
  const nextStep = () => {
    server.clock.advance(STEP);
    other.clock.advance(STEP);
  };
  const passwordStep = (agent: UserAgent, username: string) => agent.post('/login', { username, password: PASSWORD });

  async function enrolled(username: string) {
    const user = await createUser(server.deps, username);
    const enrolment = await enrolFromAccount(await signedIn(server.app, username), server.clock.now);
    nextStep();
    return { user, ...enrolment };
  }

  it('enrolment stores the secret encrypted and ten hashed recovery codes; password and code sign in with amr pwd, otp and the mfa acr', async () => {
    const { user, secret, recoveryCodes } = await enrolled('tess');
    const [row] = await server.app.database.sql.query<{ secret: string }>('SELECT secret FROM user_totp_factors WHERE user_id = $1', [
      user.id,
    ]);
    expect(row!.secret).toMatch(/^v1\./);
    expect(row!.secret).not.toContain(secret);
    const hashes = await server.app.database.sql.query<{ code_hash: string }>(
      'SELECT code_hash FROM user_recovery_codes WHERE user_id = $1',
      [user.id],
    );
    expect(hashes).toHaveLength(10);
    expect(hashes.map((hash) => hash.code_hash)).not.toContain(recoveryCodes[0]);

    const browser = userAgent(server.app);
    const afterPassword = await passwordStep(browser, 'tess');
    expect(afterPassword.headers.location).toBe('/login/second-factor');
    // Half signed in: no page sees a user yet.
    expect((await browser.request({ method: 'GET', url: '/account' })).headers.location).toBe('/login');
    const passed = await secondStep(browser, await codeAt(secret, server.clock.now));
    expect(passed.statusCode).toBe(303);
    const { response } = await codeFlow(server, browser, client);
    const idToken = await verifiedIdToken(server, response.json<{ id_token: string }>().id_token, client.application.uid);
    expect(idToken).toMatchObject({ amr: ['pwd', 'otp'], acr: MFA });
    const events = await listAuditEvents(server.deps, { userId: user.id, type: 'user.second_factor.enrolled', limit: 5 });
    expect(events).toHaveLength(1);
    // The sign-in is recorded when it completes, with its method: the password step alone was not one.
    const signIns = await listAuditEvents(server.deps, { userId: user.id, type: 'user.sign_in.succeeded', limit: 5 });
    expect(signIns.map((event) => event.details)).toEqual([
      { username: 'tess', method: 'totp', amr: ['pwd', 'otp'] },
      { username: 'tess' }, // the password-only sign-in of the enrolment, before the app was set up
    ]);
  });

  it('a wrong code is refused and counted; a replayed code is refused, on another instance too; then the lockout', async () => {
    const { user, secret } = await enrolled('rita');
    const browser = userAgent(server.app);
    await passwordStep(browser, 'rita');
    const wrong = await secondStep(browser, '000000');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('That code is not valid.');
    const code = await codeAt(secret, server.clock.now);
    expect((await secondStep(browser, code)).statusCode).toBe(303);

    // The same code again, here and on the other instance: refused (the step is recorded in the database).
    for (const instance of [server, other]) {
      const replaying = userAgent(instance.app);
      expect((await passwordStep(replaying, 'rita')).headers.location).toBe('/login/second-factor');
      expect((await secondStep(replaying, code)).statusCode).toBe(401);
    }
    // Limited like passwords (per instance, user name and address; a right code resets the count, a right password
    // does not): the replay here was one failure since the right code, two more lock, and then even a right code is refused.
    nextStep();
    const locked = userAgent(server.app);
    expect((await passwordStep(locked, 'rita')).headers.location).toBe('/login/second-factor');
    for (const wrongCode of ['ZZZZ-ZZZZ-ZZZZ-ZZZZ', 'YYYY-YYYY-YYYY-YYYY'])
      expect((await secondStep(locked, wrongCode)).statusCode).toBe(401);
    const refused = await secondStep(locked, await codeAt(secret, server.clock.now));
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toContain('Too many failed sign-in attempts.');
    const failures = await listAuditEvents(server.deps, { userId: user.id, type: 'user.second_factor.failed', limit: 10 });
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(failures)).not.toContain(code);
    // Four right passwords, one right code: one sign-in by the second step (and the enrolment's own, by password).
    const signIns = await listAuditEvents(server.deps, { userId: user.id, type: 'user.sign_in.succeeded', limit: 10 });
    expect(signIns.map((event) => (event.details as { method?: string }).method)).toEqual(['totp', undefined]);
  });

  it("wrong codes from many addresses lock the account's second step: a right code from yet another address is refused too", async () => {
    const { secret } = await enrolled('spread');
    // Whoever has the password, from a new address for each guess (RFC 6238 section 5.2: the limit is the account's).
    const from = (address: string) => {
      const agent = userAgent(server.app);
      const request = agent.request.bind(agent);
      agent.request = (options) => request({ ...options, remoteAddress: address });
      return agent;
    };
    for (const [index, address] of ['198.51.100.1', '198.51.100.2', '198.51.100.3'].entries()) {
      const guesser = from(address);
      expect((await passwordStep(guesser, 'spread')).headers.location).toBe('/login/second-factor');
      expect((await secondStep(guesser, String(100000 + index))).statusCode).toBe(401);
    }
    const owner = from('203.0.113.9');
    expect((await passwordStep(owner, 'spread')).headers.location).toBe('/login/second-factor');
    const refused = await secondStep(owner, await codeAt(secret, server.clock.now));
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const lockouts = await listAuditEvents(server.deps, { type: 'user.locked_out', limit: 20 });
    expect(lockouts.find((event) => event.subjectId === 'spread')).toMatchObject({
      ip: '198.51.100.3',
      details: { kind: 'second_factors', username: 'spread' },
    });
  });

  it('two instances given the same code at once accept it once', async () => {
    const { secret } = await enrolled('paula');
    const [first, second] = [userAgent(server.app), userAgent(other.app)];
    await passwordStep(first, 'paula');
    await passwordStep(second, 'paula');
    const code = await codeAt(secret, server.clock.now);
    const answers = await Promise.all([secondStep(first, code), secondStep(second, code)]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 401]);
  });

  it('a recovery code signs in once; the account page shows how many are left and makes new ones', async () => {
    const { user, recoveryCodes } = await enrolled('rob');
    const code = recoveryCodes[3]!;
    const browser = userAgent(server.app);
    await passwordStep(browser, 'rob');
    expect((await secondStep(browser, code.toLowerCase())).statusCode).toBe(303);
    const account = await browser.request({ method: 'GET', url: '/account' });
    expect(account.body).toContain('Unused recovery codes: 9.');
    expect(await listAuditEvents(server.deps, { userId: user.id, type: 'user.recovery_code.used', limit: 5 })).toMatchObject([
      { details: { left: 9 } },
    ]);
    const again = userAgent(server.app);
    await passwordStep(again, 'rob');
    expect((await secondStep(again, code)).statusCode).toBe(401);

    // The browser alone does not make new codes (they are a factor): the password or a code of the factor first.
    const unproven = await browser.post('/account/second-factor/recovery-codes', { proof: 'not the password' }, '/account');
    expect(unproven.statusCode).toBe(401);
    expect(unproven.body).toContain('id="recovery_codes_error"');
    // The page comes back scrolled to its top: the field in error takes the focus (found by the account pages' audit).
    expect(unproven.body).toContain('aria-invalid="true" aria-describedby="recovery_codes_error" autofocus>');
    expect(recoveryCodesOnPage(unproven.body)).toHaveLength(0);
    const blank = await browser.post('/account/second-factor/recovery-codes', {}, '/account');
    expect(blank.statusCode).toBe(401);
    // A used recovery code as the proof: refused, and in the trail as a wrong code at the second step is.
    expect((await browser.post('/account/second-factor/recovery-codes', { proof: code }, '/account')).statusCode).toBe(401);
    const failures = await listAuditEvents(server.deps, { userId: user.id, type: 'user.second_factor.failed', limit: 10 });
    expect(failures.map((event) => event.details)).toEqual([
      { reason: 'invalid_code', via: 'account' },
      { reason: 'invalid_code', via: 'account' },
      { reason: 'invalid_code', via: 'account' },
      { reason: 'invalid_code' },
    ]);
    const renewed = await browser.post('/account/second-factor/recovery-codes', { proof: PASSWORD }, '/account');
    const fresh = recoveryCodesOnPage(renewed.body);
    expect(fresh).toHaveLength(10);
    const old = userAgent(server.app);
    await passwordStep(old, 'rob');
    expect((await secondStep(old, recoveryCodes[4]!)).statusCode).toBe(401);
  });

  it('turning it off asks for the password; then the password alone signs in', async () => {
    const { user } = await enrolled('otto');
    const browser = userAgent(server.app);
    await passwordStep(browser, 'otto');
    await secondStep(browser, (await enrolledRecovery(user.id)) ?? '');
    // Signed in, Back to a page of the second step: /login sends the browser on, with no "took too long" (UI audit).
    const back = await browser.request({ method: 'GET', url: '/login/second-factor' });
    expect([back.statusCode, back.headers.location]).toEqual([303, '/login']);
    const sentOn = await browser.request({ method: 'GET', url: '/login' });
    expect(sentOn.statusCode).toBe(303);
    const landed = await browser.request({ method: 'GET', url: sentOn.headers.location as string });
    expect(landed.body).not.toContain('took too long');
    const wrong = await browser.post('/account/second-factor/remove', { proof: 'not the password' }, '/account');
    // The account page again, the message at the field, announced (UI audit: it was a notice at the top).
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('<p class="error" role="alert" id="second_factor_error">The password or code is not correct.</p>');
    expect(wrong.body).toContain('aria-invalid="true" aria-describedby="second_factor_error" autofocus>');
    await browser.post('/account/second-factor/remove', { proof: PASSWORD }, '/account');
    expect((await browser.request({ method: 'GET', url: '/account' })).body).toContain('Two-step verification has been turned off.');
    expect((await passwordStep(userAgent(server.app), 'otto')).statusCode).toBe(303);
    expect((await passwordStep(userAgent(server.app), 'otto')).headers.location).not.toBe('/login/second-factor');
  });

  it('guessing the password on the account page is limited as at sign-in: then even the right one is refused (429), and nothing changes', async () => {
    const user = await createUser(server.deps, 'guessed');
    const browser = await signedIn(server.app, 'guessed');
    const { recoveryCodes } = await enrolFromAccount(browser, server.clock.now);
    nextStep();
    // LIMITS.maxFailures wrong proofs, turning the factor off or making new recovery codes alike.
    expect((await browser.post('/account/second-factor/remove', { proof: 'guess 1' }, '/account')).statusCode).toBe(401);
    expect((await browser.post('/account/second-factor/recovery-codes', { proof: 'guess 2' }, '/account')).statusCode).toBe(401);
    expect((await browser.post('/account/second-factor/remove', { proof: 'guess 3' }, '/account')).statusCode).toBe(401);
    for (const path of ['/account/second-factor/remove', '/account/second-factor/recovery-codes']) {
      const refused = await browser.post(path, { proof: PASSWORD }, '/account');
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body).toContain('Too many failed sign-in attempts.');
    }
    expect(await server.deps.stores.secondFactors.hasTotp(user.id)).toBe(true);
    // The codes shown at the enrolment still sign in: none was replaced.
    const signingIn = userAgent(server.app);
    server.clock.advance(LIMITS.lockoutSeconds);
    other.clock.advance(LIMITS.lockoutSeconds);
    await passwordStep(signingIn, 'guessed');
    expect((await secondStep(signingIn, recoveryCodes[0]!)).statusCode).toBe(303);
    const trail = await listAuditEvents(server.deps, { userId: user.id, type: 'user.second_factor.failed', limit: 10 });
    expect(trail.length).toBeGreaterThanOrEqual(4);
  });

  it('guessing the current password while setting up is limited too: the right password and code then set up nothing', async () => {
    const user = await createUser(server.deps, 'guessed-setup');
    const browser = await signedIn(server.app, 'guessed-setup');
    const page = await browser.request({ method: 'GET', url: '/account/second-factor' });
    const code = await codeAt(secretOnPage(page.body), server.clock.now);
    for (const guess of ['guess 1', 'guess 2', 'guess 3'])
      expect((await browser.post('/account/second-factor', { current: guess, code }, '/account/second-factor')).statusCode).toBe(401);
    const refused = await browser.post('/account/second-factor', { current: PASSWORD, code }, '/account/second-factor');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('Too many failed sign-in attempts.');
    expect(await server.deps.stores.secondFactors.hasTotp(user.id)).toBe(false);
  });

  // The recovery codes are shown once; this test signs in with a fresh set, as the user would after regenerating.
  async function enrolledRecovery(userId: number): Promise<string | null> {
    const { regenerateRecoveryCodes } = await import('../../src/oauth/second-factor/second-factors.js');
    return (await regenerateRecoveryCodes(server.deps, userId))[0] ?? null;
  }

  it("a user whose mfa is required enrols at the second step before the sign-in completes, and can't turn it off", async () => {
    const user = await createUser(server.deps, 'newcomer');
    await server.deps.stores.secondFactors.setPolicy(user.id, 'required');
    const browser = userAgent(server.app);
    expect((await passwordStep(browser, 'newcomer')).headers.location).toBe('/login/second-factor');
    const enrolPage = await browser.request({ method: 'GET', url: '/login/second-factor' });
    expect(enrolPage.body).toContain('Your account requires two-step verification.');
    expect(enrolPage.body).toContain('<svg role="img"');
    const secret = secretOnPage(enrolPage.body);
    const wrong = await browser.post('/login/second-factor/enrol', { code: '123456' }, '/login/second-factor');
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('That code is not valid.');
    // A code not typed is said so, not called wrong (as at the second step).
    const empty = await browser.post('/login/second-factor/enrol', { code: ' ' }, '/login/second-factor');
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('Enter a code.');
    const done = await browser.post('/login/second-factor/enrol', { code: await codeAt(secret, server.clock.now) }, '/login/second-factor');
    expect(done.statusCode).toBe(200);
    expect(recoveryCodesOnPage(done.body)).toHaveLength(10);
    const account = await browser.request({ method: 'GET', url: '/account' });
    expect(account.statusCode).toBe(200);
    expect(account.body).toContain('Your account requires two-step verification: it cannot be turned off.');
    const refused = await browser.post('/account/second-factor/remove', { proof: PASSWORD }, '/account');
    expect(refused.headers.location).toBe('/account');
    expect(await server.deps.stores.secondFactors.findTotp(user.id)).not.toBeNull();
  });

  it('acr_values naming the mfa acr on a password-only session asks for the password and the second step again', async () => {
    const { secret } = await enrolled('stepper');
    await server.deps.stores.secondFactors.setPolicy((await server.deps.stores.users.findByUsername('stepper'))!.id, 'off');
    const browser = await signedIn(server.app, 'stepper');
    const first = await codeFlow(server, browser, client);
    expect(await verifiedIdToken(server, first.response.json<{ id_token: string }>().id_token, client.application.uid)).toMatchObject({
      amr: ['pwd'],
    });
    const asked = await browser.request({
      method: 'GET',
      url: `/oauth/authorize?client_id=${client.application.uid}&redirect_uri=${encodeURIComponent('https://client.example.com/callback')}&response_type=code&scope=openid&acr_values=${encodeURIComponent(MFA)}`,
    });
    expect(asked.headers.location).toBe('/login');
    const afterPassword = await passwordStep(browser, 'stepper');
    expect(afterPassword.headers.location).toBe('/login/second-factor');
    const passed = await secondStep(browser, await codeAt(secret, server.clock.now));
    const { response } = await codeFlow(server, browser, client, { acr_values: MFA });
    expect(passed.statusCode).toBe(303);
    expect(await verifiedIdToken(server, response.json<{ id_token: string }>().id_token, client.application.uid)).toMatchObject({
      amr: ['pwd', 'otp'],
      acr: MFA,
    });
  });

  it('setting up from the account page asks for the current password: a wrong one stores nothing', async () => {
    const user = await createUser(server.deps, 'borrowed');
    const browser = await signedIn(server.app, 'borrowed');
    const page = await browser.request({ method: 'GET', url: '/account/second-factor' });
    const code = await codeAt(secretOnPage(page.body), server.clock.now);
    const refused = await browser.post('/account/second-factor', { current: 'not the password', code }, '/account/second-factor');
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('Your current password is not correct.');
    expect(await server.deps.stores.secondFactors.hasTotp(user.id)).toBe(false);
    const empty = await browser.post('/account/second-factor', { current: PASSWORD, code: '' }, '/account/second-factor');
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('Enter a code.');
    expect(await server.deps.stores.secondFactors.hasTotp(user.id)).toBe(false);
  });

  it('the set-up form posted again once the app is set up (back, a second tab) keeps the factor and says it is on already', async () => {
    const user = await createUser(server.deps, 'twice');
    const browser = await signedIn(server.app, 'twice');
    const { secret } = await enrolFromAccount(browser, server.clock.now);
    const before = await server.deps.stores.secondFactors.findTotp(user.id);
    nextStep();
    const code = await codeAt(secret, server.clock.now);
    const again = await browser.post('/account/second-factor', { current: PASSWORD, code }, '/account');
    expect({ status: again.statusCode, location: again.headers.location }).toEqual({ status: 303, location: '/account' });
    const account = await browser.request({ method: 'GET', url: '/account' });
    expect(account.body).toContain('Two-step verification is on already: to use another authenticator app, turn it off first');
    expect(await server.deps.stores.secondFactors.findTotp(user.id)).toEqual(before);
  });

  it("the account page and the enrolment page speak the user's language", async () => {
    await createUser(server.deps, 'jutta');
    const browser = await signedIn(server.app, 'jutta');
    const account = await browser.request({ method: 'GET', url: '/account', headers: { 'accept-language': 'de' } });
    expect(account.body).toContain('<h1>Ihr Konto</h1>');
    expect(account.body).toContain('Bestätigung in zwei Schritten einrichten');
    expect(account.body).toContain('(dieses Gerät)');
    // No upstream provider to sign in with and no identity kept from one: no "Sign-in identities" section.
    expect(account.body).not.toContain('id="identities_heading"');
    const enrolPage = await browser.request({ method: 'GET', url: '/account/second-factor', headers: { 'accept-language': 'ja' } });
    expect(enrolPage.body).toContain('認証アプリ用の QR コード');
    // French puts a no-break space before the colon: the colon is the message's, not the page's.
    const french = await browser.request({ method: 'GET', url: '/account/second-factor', headers: { 'accept-language': 'fr' } });
    expect(french.body).toContain('<figcaption>Clé\u00a0: <code id="totp_secret">');
  });

  it('requireSecondFactor listing a client: its authorizations need the second step, other clients do not', async () => {
    const { user, secret } = await enrolled('picky');
    await server.deps.stores.secondFactors.setPolicy(user.id, 'off');
    const strict = await createClient(other.deps, { scopes: 'openid' }, { uid: STRICT_CLIENT });
    const browser = await signedIn(other.app, 'picky');
    const plain = await codeFlow(other, browser, client);
    expect(await verifiedIdToken(other, plain.response.json<{ id_token: string }>().id_token, client.application.uid)).toMatchObject({
      amr: ['pwd'],
    });
    const asked = await browser.request({
      method: 'GET',
      url: `/oauth/authorize?client_id=${STRICT_CLIENT}&redirect_uri=${encodeURIComponent('https://client.example.com/callback')}&response_type=code&scope=openid`,
    });
    expect(asked.headers.location).toBe('/login');
    expect((await passwordStep(browser, 'picky')).headers.location).toBe('/login/second-factor');
    expect((await secondStep(browser, await codeAt(secret, other.clock.now))).statusCode).toBe(303);
    const { response } = await codeFlow(other, browser, strict);
    expect(await verifiedIdToken(other, response.json<{ id_token: string }>().id_token, STRICT_CLIENT)).toMatchObject({
      amr: ['pwd', 'otp'],
      acr: MFA,
    });
  });

  it('discovery lists the mfa acr', async () => {
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json<{
      acr_values_supported: string[];
    }>();
    expect(metadata.acr_values_supported).toContain(MFA);
  });

  it('the admin sets the policy and resets a lost second factor on the Users page (audited); the user enrols again at the next sign-in', async () => {
    const { user } = await enrolled('lostphone');
    {
      const session = new AdminSession(server.app);
      expect((await session.get(`/oauth/users/${user.id}`)).body).toContain('An authenticator app (TOTP) is set up.');
      expect((await session.submit(`/oauth/users/${user.id}/mfa`, { mfa: 'required' })).statusCode).toBe(302);
      expect((await session.submit(`/oauth/users/${user.id}/mfa`, { mfa: 'always' })).statusCode).toBe(400);
      // Missing (or sent as a list, stripped as an unknown field): a bad form, not "no such user" (404).
      expect((await session.submit(`/oauth/users/${user.id}/mfa`, {})).statusCode).toBe(400);
      expect((await session.submit(`/oauth/users/${user.id}/mfa`, { 'mfa[]': 'optional' })).statusCode).toBe(400);
      // A link to a confirmation page, as "Remove all passkeys" (it acted at one click; found by the admin pages' audit).
      expect((await session.get(`/oauth/users/${user.id}`)).body).toContain(
        `<a class="button danger" href="/oauth/users/${user.id}/reset_second_factor">Reset second factor</a>`,
      );
      const confirm = await session.get(`/oauth/users/${user.id}/reset_second_factor`);
      expect(confirm.body).toContain('Remove the authenticator app and the recovery codes of <strong>lostphone</strong>?');
      expect(confirm.body).toContain(`<form method="post" action="/oauth/users/${user.id}/reset_second_factor">`);
      expect(await server.deps.stores.secondFactors.hasTotp(user.id)).toBe(true);
      expect((await session.submit(`/oauth/users/${user.id}/reset_second_factor`, {})).statusCode).toBe(302);
      expect((await session.get(`/oauth/users/${user.id}`)).body).toContain('No second factor is set up.');
      const events = await listAuditEvents(server.deps, { userId: user.id, limit: 10 });
      expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['user.second_factor.reset', 'user.updated']));
    }
    const browser = userAgent(server.app);
    expect((await passwordStep(browser, 'lostphone')).headers.location).toBe('/login/second-factor');
    expect((await browser.request({ method: 'GET', url: '/login/second-factor' })).body).toContain('id="otpauth_uri"');
  });
});
