import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, PASSWORD, signedIn } from '../helpers/end-user.js';
import { DEVICE_CODE_GRANT, DEVICE_FLOW_CONFIG, deviceAuthorization, pollDevice } from '../helpers/device-flow.js';
import { codeAt, enrolFromAccount, secondStep } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import type { TestClient } from '../helpers/factories.js';

// authentication.requireSecondFactor names clients whose authorizations need the second step: a device's too (RFC 8628),
// approved at /device by a browser that may have signed in with the password alone.

const STRICT_CLIENT = 'strict-tv';

describe(`/device for a client that requires the second step (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    server = await buildTestServer({ config: { ...DEVICE_FLOW_CONFIG, authentication: { requireSecondFactor: [STRICT_CLIENT] } } });
    const { application } = await createClient(server.deps, { confidential: false }, { uid: STRICT_CLIENT });
    await server.deps.stores.applicationAdmin.update(application.id, { grantTypes: [DEVICE_CODE_GRANT] });
    client = { application, secret: null, uid: STRICT_CLIENT };
  });
  afterAll(() => server.close());

  it('a password-only sign-in is sent to sign in with the second step first, then approves from the entered code', async () => {
    const user = await createUser(server.deps, 'tv-owner');
    const { secret } = await enrolFromAccount(await signedIn(server.app, 'tv-owner'), server.clock.now);
    // The user's own policy does not ask for the step at every sign-in: only this client's does.
    await server.deps.stores.secondFactors.setPolicy(user.id, 'off');
    server.clock.advance(30_000);
    const browser = await signedIn(server.app, 'tv-owner');
    const { user_code: userCode, device_code: deviceCode } = await deviceAuthorization(server.app, client);

    const entry = await browser.post('/device', { user_code: userCode }, '/device');
    expect([entry.statusCode, entry.headers.location]).toEqual([303, '/device/consent']);
    const consent = await browser.request({ method: 'GET', url: '/device/consent' });
    expect([consent.statusCode, consent.headers.location]).toEqual([302, '/login']);
    expect((await pollDevice(server.app, client, deviceCode)).json()).toMatchObject({ error: 'authorization_pending' });

    const password = await browser.post('/login', { username: 'tv-owner', password: PASSWORD });
    expect(password.headers.location).toBe('/login/second-factor');
    const passed = await secondStep(browser, await codeAt(secret, server.clock.now));
    expect([passed.statusCode, passed.headers.location]).toEqual([303, `/device?user_code=${encodeURIComponent(userCode)}`]);

    const again = await browser.post('/device', { user_code: userCode }, String(passed.headers.location));
    expect(again.headers.location).toBe('/device/consent');
    const page = await browser.request({ method: 'GET', url: '/device/consent' });
    expect(page.statusCode).toBe(200);
    const decided = await browser.post('/device/decision', { user_code: userCode }, '/device/consent');
    expect([decided.statusCode, decided.headers.location]).toEqual([303, '/device/done']);
    expect((await pollDevice(server.app, client, deviceCode)).statusCode).toBe(200);
  });

  it('a decision posted by a password-only browser approves nothing', async () => {
    await createUser(server.deps, 'tv-guest');
    const browser = await signedIn(server.app, 'tv-guest');
    const { user_code: userCode, device_code: deviceCode } = await deviceAuthorization(server.app, client);
    expect((await browser.post('/device', { user_code: userCode }, '/device')).headers.location).toBe('/device/consent');
    const decided = await browser.post('/device/decision', { user_code: userCode }, '/device');
    // A POST is answered 303 (RFC 9700 4.12): the browser must not post the decision on to /login.
    expect([decided.statusCode, decided.headers.location]).toEqual([303, '/login']);
    expect((await pollDevice(server.app, client, deviceCode)).json()).toMatchObject({ error: 'authorization_pending' });
  });
});
