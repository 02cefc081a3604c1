import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import {
  DEVICE_FLOW_CONFIG,
  decideAtDevicePage,
  deviceAuthorization,
  deviceClient,
  enterDeviceCode,
  pollDevice,
} from '../helpers/device-flow.js';
import { createUser, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import type { TestClient } from '../helpers/factories.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

// RFC 8628 section 3.3 (issue 34 item 2): the verification page /device. Sign-in first, the code flow's consent with
// the device warning, CSRF on every form; section 5.1: wrong user codes are limited per address, entries per code.

describe(`GET and POST /device (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let alice: UserAgent;
  beforeAll(async () => {
    server = await buildTestServer({
      config: { ...DEVICE_FLOW_CONFIG, rateLimit: { maxFailures: 3 }, deviceAuthorization: { maxEntriesPerCode: 2 } },
    });
    client = await deviceClient(server.deps);
    await createUser(server.deps, 'alice');
    await createUser(server.deps, 'bob');
    alice = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  it('signs the person in first and comes back to the pre-filled code (verification_uri_complete)', async () => {
    const { verification_uri_complete: complete, user_code: userCode } = await deviceAuthorization(server.app, client);
    const path = new URL(complete).pathname + new URL(complete).search;
    const agent = userAgent(server.app);
    const first = await agent.request({ method: 'GET', url: path });
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe('/login');
    const login = await agent.post('/login', { username: 'alice', password: PASSWORD });
    expect(login.headers.location).toBe(path);
    const page = await agent.request({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`name="user_code" value="${userCode}"`);
  });

  it('shows the consent page with the warning and the code, and records the consent when approved', async () => {
    const { user_code: userCode } = await deviceAuthorization(server.app, client, { scope: 'read write' });
    // Typed in lower case without the dash: the page shows it as the device does, to compare.
    const consent = await enterDeviceCode(alice, userCode.toLowerCase().replace('-', ''));
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('Only continue if this code is shown on your device');
    expect(consent.body).toContain(`<strong id="device-user-code">${userCode}</strong>`);
    expect(consent.body).toContain('<li>write</li>');
    expect(consent.body).toContain('action="/device/decision"');
    const done = await decideAtDevicePage(alice, userCode, true);
    expect(done.body).toContain('Device connected');
    const [event] = await listAuditEvents(server.deps, { type: 'consent.given', clientId: client.uid, limit: 1 });
    expect(event).toMatchObject({ userId: expect.any(Number), details: { scopes: ['read', 'write'], prompted: true, device: true } });
  });

  it('each accepted form redirects to a page of its own (POST/redirect/GET): Back after the decision sends no form again (UI audit)', async () => {
    const { user_code: userCode } = await deviceAuthorization(server.app, client);
    const entry = await alice.post('/device', { user_code: userCode }, '/device');
    expect([entry.statusCode, entry.headers.location]).toEqual([303, '/device/consent']);
    const consent = await alice.request({ method: 'GET', url: '/device/consent' });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(consent.body)![1]!;
    const decision = await alice.post('/device/decision', { user_code: userCode, _csrf: csrf });
    expect([decision.statusCode, decision.headers.location]).toEqual([303, '/device/done']);
    expect((await alice.request({ method: 'GET', url: '/device/done' })).body).toContain('Device connected');
    // Back: the done page and the consent page, once decided, lead to the entry page; nothing is decided again.
    for (const url of ['/device/done', '/device/consent']) {
      const again = await alice.request({ method: 'GET', url });
      expect([url, again.statusCode, again.headers.location]).toEqual([url, 303, '/device']);
    }
  });

  // A races audit: the one that came second was told the code "is not valid, or it has expired", while the device was
  // signed in by the other.
  it('approve and deny posted at once (two tabs): one decides, the other is told the code was answered already', async () => {
    const { user_code: userCode } = await deviceAuthorization(server.app, client);
    await enterDeviceCode(alice, userCode);
    const consent = await alice.request({ method: 'GET', url: '/device/consent' });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(consent.body)![1]!;
    const answers = await Promise.all([
      alice.post('/device/decision', { user_code: userCode, _csrf: csrf }),
      alice.post('/device/decision', { user_code: userCode, _csrf: csrf, _method: 'delete' }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 400]);
    expect(answers.find((answer) => answer.statusCode === 400)!.body).toContain(
      'That code was answered already, in another tab or window.',
    );
  });

  it('a code this browser approved, denied afterwards from another tab: answered already, and the device stays approved', async () => {
    const started = await deviceAuthorization(server.app, client);
    await enterDeviceCode(alice, started.user_code);
    const consent = await alice.request({ method: 'GET', url: '/device/consent' });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(consent.body)![1]!;
    expect((await alice.post('/device/decision', { user_code: started.user_code, _csrf: csrf })).statusCode).toBe(303);
    const late = await alice.post('/device/decision', { user_code: started.user_code, _csrf: csrf, _method: 'delete' });
    expect(late.statusCode).toBe(400);
    expect(late.body).toContain('That code was answered already, in another tab or window.');
    // Another browser that types the same code learns nothing from it: a wrong code (from an address of its own, so that
    // the count of wrong codes below is this test's).
    const bob = await signedIn(server.app, 'bob');
    const payload = form({ user_code: started.user_code, _csrf: await bob.csrfFrom('/device') });
    const entry = await bob.request({ method: 'POST', url: '/device', headers: FORM, payload, remoteAddress: '192.0.2.9' });
    expect(entry.body).toContain('That code is not valid, or it has expired.');
    expect((await pollDevice(server.app, client, started.device_code)).statusCode).toBe(200);
  });

  it('refuses the forms without their CSRF token (403) and decides nothing', async () => {
    const started = await deviceAuthorization(server.app, client);
    const noToken = await alice.post('/device/decision', { user_code: started.user_code, _csrf: 'forged' });
    expect(noToken.statusCode).toBe(403);
    expect((await pollDevice(server.app, client, started.device_code)).json()).toMatchObject({ error: 'authorization_pending' });
  });

  it('a decision for a code this browser never entered goes back to the entry page and decides nothing (section 5.4)', async () => {
    const started = await deviceAuthorization(server.app, client);
    const page = await alice.request({ method: 'GET', url: '/device' });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const skipped = await alice.post('/device/decision', { user_code: started.user_code, _csrf: csrf });
    expect(skipped.statusCode).toBe(200);
    expect(skipped.body).toContain(`name="user_code" value="${started.user_code}"`);
    expect(skipped.body).not.toContain('Device connected');
    expect((await pollDevice(server.app, client, started.device_code)).json()).toMatchObject({ error: 'authorization_pending' });
    // Another code entered is not this one either; entering this one lets it be decided.
    const other = await deviceAuthorization(server.app, client);
    await enterDeviceCode(alice, other.user_code);
    expect((await alice.post('/device/decision', { user_code: started.user_code, _csrf: csrf })).body).not.toContain('Device connected');
    expect((await decideAtDevicePage(alice, started.user_code, true)).body).toContain('Device connected');
  });

  it('a code entered more often than maxEntriesPerCode denies the device (access_denied)', async () => {
    const started = await deviceAuthorization(server.app, client);
    for (let entry = 0; entry < 2; entry++) expect((await enterDeviceCode(alice, started.user_code)).statusCode).toBe(200);
    const third = await alice.post('/device', { user_code: started.user_code }, '/device');
    expect(third.statusCode).toBe(400);
    expect(third.body).toContain('This code was entered too often');
    // Entered again, it says so again: it was not answered in another tab, and nobody denied it.
    const fourth = await alice.post('/device', { user_code: started.user_code }, '/device');
    expect(fourth.statusCode).toBe(400);
    expect(fourth.body).toContain('This code was entered too often');
    expect((await pollDevice(server.app, client, started.device_code)).json()).toEqual({
      error: 'access_denied',
      error_description: 'The resource owner or authorization server denied the request.',
    });
  });

  it('the entry past maxEntriesPerCode shows the device page again, its message in the page language (audit h finding 3)', async () => {
    const started = await deviceAuthorization(server.app, client);
    for (let entry = 0; entry < 2; entry++) expect((await enterDeviceCode(alice, started.user_code)).statusCode).toBe(200);
    const csrf = await alice.csrfFrom('/device');
    const third = await alice.request({
      method: 'POST',
      url: '/device',
      headers: { ...FORM, 'accept-language': 'de' },
      payload: form({ user_code: started.user_code, _csrf: csrf }),
    });
    expect(third.statusCode).toBe(400);
    expect(third.body).toContain('Dieser Code wurde zu oft eingegeben. Beginnen Sie auf Ihrem Gerät von vorn.');
    expect(third.body).toContain(`name="user_code" value="${started.user_code}"`);
    expect(third.body).not.toContain('This code was entered too often');
    expect((await pollDevice(server.app, client, started.device_code)).json()).toMatchObject({ error: 'access_denied' });
  });

  // Last: it locks this address out for the rest of the file.
  it('wrong user codes count as failures for the address: past rateLimit.maxFailures even the right code gets 429', async () => {
    const started = await deviceAuthorization(server.app, client);
    for (const guess of ['BCDF-GHJK', 'AAAA-AAAA', 'not a code']) {
      const wrong = await alice.post('/device', { user_code: guess }, '/device');
      expect(wrong.statusCode).toBe(400);
      expect(wrong.body).toContain('That code is not valid, or it has expired.');
    }
    const locked = await alice.post('/device', { user_code: started.user_code }, '/device');
    expect(locked.statusCode).toBe(429);
    expect(locked.body).toContain('Too many wrong codes.');
    expect((await pollDevice(server.app, client, started.device_code)).json()).toMatchObject({ error: 'authorization_pending' });
  });
});

describe(`the device flow's logs (${backend})`, () => {
  const log = capturedLogLines();
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { ...DEVICE_FLOW_CONFIG, log: { level: 'trace', format: 'json' } }, logStream: log.stream });
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  it('never hold the device code or the user code, in URLs or bodies', async () => {
    const client = await deviceClient(server.deps);
    const alice = await signedIn(server.app, 'alice');
    const started = await deviceAuthorization(server.app, client);
    await decideAtDevicePage(alice, started.user_code, true);
    const issued = await pollDevice(server.app, client, started.device_code);
    expect(issued.statusCode).toBe(200);
    const text = log.raw.join('\n');
    expect(text).toContain('/device?user_code=[Redacted]');
    for (const secret of [started.device_code, started.user_code, started.user_code.replace('-', ''), issued.json().access_token])
      expect(text).not.toContain(secret);
  });
});
