import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { ADMIN_PASSWORD, adminContext } from '../helpers/admin-browser.js';
import { createUser } from '../helpers/factories.js';
import { clientCallbackServer, type ClientCallback } from '../helpers/listening-server.js';
import { closeAll, listeningServerAndChromium, signInOnLoginPage } from '../helpers/relying-party-page.js';
import { basicAuth, form, FORM, type TestServer } from '../helpers/test-server.js';

// Issue 5: "An admin-created application completes the authorization code flow from its Authorize link."
describe('an application created in the admin UI, authorized from its show page', () => {
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let browser: Browser;

  beforeAll(async () => {
    callback = await clientCallbackServer();
    ({ server, browser } = await listeningServerAndChromium({ admin: { passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) } }));
  });
  afterAll(() => closeAll(browser, server, callback));

  it('the admin creates it, a user follows its Authorize link, logs in, approves, and the code is exchanged with the secret shown once', async () => {
    const user = await createUser(server.deps, 'bob', 'a password for bob');
    const admin = await adminContext(browser, server.baseUrl);
    const adminPage = await admin.newPage();
    await adminPage.goto('/oauth/applications/new');
    await adminPage.getByLabel('Name', { exact: true }).fill('Linked App');
    await adminPage.getByLabel('Redirect URI').fill(callback.url);
    await adminPage.getByRole('button', { name: 'Submit' }).click();
    const uid = await adminPage.locator('#application_id').innerText();
    const secret = await adminPage.locator('#secret').innerText();
    const authorizeHref = await adminPage.getByRole('link', { name: 'Authorize' }).first().getAttribute('href');
    expect(authorizeHref).toBeTruthy();

    // The end user is someone else: a fresh browser context without the admin's credentials.
    const userContext = await browser.newContext({ baseURL: server.baseUrl });
    const page = await userContext.newPage();
    await page.goto(new URL(authorizeHref!, server.baseUrl).href);
    await signInOnLoginPage(page, user.username, user.password);
    await page.waitForURL((url) => url.pathname === '/oauth/authorize');
    expect(await page.locator('p.prompt').textContent()).toBe('Authorize Linked App to use your account?');
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(callback.url)),
      page.getByRole('button', { name: 'Authorize' }).click(),
    ]);

    const returned = new URL(page.url());
    expect(returned.searchParams.get('iss')).toBe(server.baseUrl);
    const code = returned.searchParams.get('code');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const exchange = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(uid, secret) },
      payload: form({ grant_type: 'authorization_code', code: code!, redirect_uri: callback.url }),
    });
    expect(exchange.statusCode).toBe(200);
    const introspection = await server.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: { ...FORM, authorization: basicAuth(uid, secret) },
      payload: form({ token: exchange.json().access_token }),
    });
    expect(introspection.json()).toMatchObject({ active: true, client_id: uid, scope: 'read' });
  });
});
