import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { OOB_URI } from '../../src/oauth/authorization/redirect-uri.js';
import { screenshot } from '../helpers/browser.js';
import { createClient, createUser } from '../helpers/end-user.js';
import { clientCallbackServer, type ClientCallback } from '../helpers/listening-server.js';
import { closeAll, listeningServerAndChromium, signInOnLoginPage } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

const VERIFIER = 'a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789';

describe('end-user pages in Chromium: escaping, errors, out-of-band code, form_post', () => {
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let browser: Browser;

  beforeAll(async () => {
    ({ server, browser } = await listeningServerAndChromium());
    callback = await clientCallbackServer();
    await createUser(server.deps, 'alice');
  });
  afterAll(() => closeAll(browser, server, callback));

  async function loggedInPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, 'alice');
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    return { context, page };
  }

  const authorizeUrl = (parameters: Record<string, string>) => `${server.baseUrl}/oauth/authorize?${new URLSearchParams(parameters)}`;

  /** A new application's form_post request (response_mode form_post), opened on a signed-in page: its consent page. */
  async function formPostConsent(name: string, state: string, options: Parameters<Browser['newContext']>[0] = {}) {
    const application = (await createClient(server.deps, { name, redirectUri: callback.url })).application;
    const { context, page } = await loggedInPage(options);
    await page.goto(
      authorizeUrl({ client_id: application.uid, redirect_uri: callback.url, response_type: 'code', response_mode: 'form_post', state }),
    );
    return { context, page };
  }

  /** The last request that reached the client's redirection endpoint. */
  const lastAtCallback = () => callback.requests.filter((request) => request.url === callback.url).at(-1)!;

  it("shows an application named <div id='xss'>XSS</div> as text on the consent screen", async () => {
    const name = `<div id='xss'>XSS</div>`;
    const application = (await createClient(server.deps, { name, redirectUri: callback.url })).application;
    const { context, page } = await loggedInPage();
    await page.goto(authorizeUrl({ client_id: application.uid, redirect_uri: callback.url, response_type: 'code' }));
    expect(await page.locator('#xss').count()).toBe(0);
    expect(await page.locator('strong.text-info').textContent()).toBe(name);
    await context.close();
  });

  it('shows the error page for an unknown client, without going anywhere', async () => {
    const { context, page } = await loggedInPage();
    const response = await page.goto(authorizeUrl({ client_id: 'unknown', redirect_uri: callback.url, response_type: 'code' }));
    expect(response?.status()).toBe(401);
    expect(new URL(page.url()).origin).toBe(server.baseUrl);
    expect(await page.locator('h1').textContent()).toBe('An error has occurred');
    expect(await page.locator('main pre').textContent()).toContain('unknown client');
    await screenshot(page, 'error');
    await context.close();
  });

  it('shows the code on the native page for the out-of-band redirect URI', async () => {
    const application = (await createClient(server.deps, { name: 'Native App', redirectUri: OOB_URI, confidential: false })).application;
    const { context, page } = await loggedInPage();
    await page.goto(
      authorizeUrl({
        client_id: application.uid,
        redirect_uri: OOB_URI,
        response_type: 'code',
        code_challenge: s256Challenge(VERIFIER),
        code_challenge_method: 'S256',
      }),
    );
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/oauth/authorize/native'),
      page.getByRole('button', { name: 'Authorize' }).click(),
    ]);
    expect(await page.locator('h1').textContent()).toBe('Authorization code:');
    const code = await page.locator('#authorization_code').textContent();
    expect(code).toBe(new URL(page.url()).searchParams.get('code'));
    await screenshot(page, 'native-code');

    // The person pastes the code into the app, which exchanges it.
    const response = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: OOB_URI,
        client_id: application.uid,
        code_verifier: VERIFIER,
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    await context.close();
  });

  it('form_post: the response form submits itself to the client (same-origin script under the CSP)', async () => {
    const { context, page } = await formPostConsent('Form Post App', 'fp');
    await Promise.all([page.waitForURL(callback.url), page.getByRole('button', { name: 'Authorize' }).click()]);
    const received = lastAtCallback();
    expect(received.method).toBe('POST');
    const body = new URLSearchParams(received.body);
    expect(body.get('state')).toBe('fp');
    expect(body.get('iss')).toBe(server.baseUrl);
    expect(body.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await context.close();
  });

  it('form_post without JavaScript: the Continue button posts the same form', async () => {
    const { context, page } = await formPostConsent('No Script App', 'nojs', { javaScriptEnabled: false });
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForLoadState();
    expect(await page.locator('h1').textContent()).toBe('Submit this form');
    await screenshot(page, 'form-post');
    await Promise.all([page.waitForURL(callback.url), page.getByRole('button', { name: 'Continue' }).click()]);
    const received = lastAtCallback();
    expect(received.method).toBe('POST');
    expect(new URLSearchParams(received.body).get('state')).toBe('nojs');
    await context.close();
  });
});
