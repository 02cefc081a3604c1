import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { hasTotp } from '../../src/oauth/second-factor/second-factors.js';
import { createUser, PASSWORD, signedIn, userAgent } from '../helpers/end-user.js';
import { codeAt, enrolFromAccount, secondStep } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// TOTP codes as people type them and the otpauth:// URI apps read (docs/behaviour.md 3.19): a code copied as the app
// shows it ("123 456") is the code, not a wrong one; the URI has no colon in its issuer or account name (Key URI Format),
// though baseUrl has a port.

const BASE_URL = 'http://localhost:18201';

describe(`TOTP codes as typed, and the otpauth URI (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { baseUrl: BASE_URL } });
  });
  afterAll(() => server.close());

  it('the otpauth URI names the issuer by the host name without the port: no colon but the one between issuer and account', async () => {
    await createUser(server.deps, 'carol');
    const browser = await signedIn(server.app, 'carol');
    const page = await browser.request({ method: 'GET', url: '/account/second-factor' });
    const href = /id="otpauth_uri" href="([^"]+)"/.exec(page.body)![1]!.replace(/&amp;/g, '&');
    const uri = new URL(href);
    expect(href).toMatch(/^otpauth:\/\/totp\/localhost:carol\?/);
    expect(uri.searchParams.get('issuer')).toBe('localhost');
  });

  it('POST /login/second-factor takes a code with a space or a dash inside, and does not count it as a failure', async () => {
    const user = await createUser(server.deps, 'spacey');
    const { secret } = await enrolFromAccount(await signedIn(server.app, 'spacey'), server.clock.now);
    for (const separator of [' ', '-']) {
      server.clock.advance(30);
      const browser = userAgent(server.app);
      expect((await browser.post('/login', { username: 'spacey', password: PASSWORD })).headers.location).toBe('/login/second-factor');
      const code = await codeAt(secret, server.clock.now);
      const passed = await secondStep(browser, ` ${code.slice(0, 3)}${separator}${code.slice(3)} `);
      expect(passed.statusCode, passed.body.slice(0, 300)).toBe(303);
      expect((await browser.request({ method: 'GET', url: '/account' })).statusCode).toBe(200);
    }
    expect(await listAuditEvents(server.deps, { userId: user.id, type: 'user.second_factor.failed', limit: 5 })).toEqual([]);
  });

  it('the enrolment takes the confirming code with a space inside, and its field lets the browser send one', async () => {
    await createUser(server.deps, 'dashy');
    const browser = await signedIn(server.app, 'dashy');
    const page = await browser.request({ method: 'GET', url: '/account/second-factor' });
    const pattern = /id="code"[^>]* pattern="([^"]+)"/.exec(page.body)![1]!;
    expect(new RegExp(`^(?:${pattern})$`, 'v').test('123 456')).toBe(true);
    expect(new RegExp(`^(?:${pattern})$`, 'v').test('12345')).toBe(false);
    const href = /id="otpauth_uri" href="([^"]+)"/.exec(page.body)![1]!.replace(/&amp;/g, '&');
    const code = await codeAt(new URL(href).searchParams.get('secret')!, server.clock.now);
    const confirmed = await browser.post(
      '/account/second-factor',
      { current: PASSWORD, code: `${code.slice(0, 3)} ${code.slice(3)}` },
      '/account/second-factor',
    );
    expect(confirmed.statusCode, confirmed.body.slice(0, 300)).toBe(200);
    expect(confirmed.body).toContain('Your recovery codes');
  });

  it('turning it off on the account page takes a code with a space inside as the code, not as a wrong password', async () => {
    const user = await createUser(server.deps, 'offy');
    const browser = await signedIn(server.app, 'offy');
    const { secret } = await enrolFromAccount(browser, server.clock.now);
    server.clock.advance(30);
    const code = await codeAt(secret, server.clock.now);
    await browser.post('/account/second-factor/remove', { proof: `${code.slice(0, 3)} ${code.slice(3)}` }, '/account');
    expect((await browser.request({ method: 'GET', url: '/account' })).body).toContain('Two-step verification has been turned off.');
    expect(await hasTotp(server.deps, user.id)).toBe(false);
  });
});
