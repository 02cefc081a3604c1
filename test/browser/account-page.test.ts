import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, screenshot } from '../helpers/browser.js';
import { createUser, PASSWORD } from '../helpers/end-user.js';
import { closeAll, listeningServerAndChromium, signInOnLoginPage } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 35 item 5: the account page in Chromium, under the strict CSP, in two browsers of one user.

describe('/account in Chromium: sessions on two devices, password change', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await listeningServerAndChromium()));
  afterAll(() => closeAll(browser, server));

  async function signedInPage(
    username: string,
    password = PASSWORD,
  ): Promise<{ context: BrowserContext; page: Page; cspErrors: string[] }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cspErrors = cspViolations(page);
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, username, password);
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    return { context, page, cspErrors };
  }

  it('lists both devices, signs the other one out with its button, and changes the password', async () => {
    await createUser(server.deps, 'carol');
    const laptop = await signedInPage('carol');
    const phone = await signedInPage('carol');

    await laptop.page.getByRole('link', { name: 'Your account' }).click();
    await laptop.page.waitForURL((url) => url.pathname === '/account');
    const rows = laptop.page.locator('#sessions tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.filter({ hasText: '(this device)' }).count()).toBe(1);
    expect(await rows.first().locator('td').first().textContent()).toContain('Chrome on Linux');
    await screenshot(laptop.page, 'account');

    await rows
      .filter({ hasNotText: '(this device)' })
      .getByRole('button', { name: /^Sign out this session: / })
      .click();
    await laptop.page.waitForURL((url) => url.pathname === '/account');
    expect(await laptop.page.locator('.notice').textContent()).toBe('The session has been signed out.');
    expect(await rows.count()).toBe(1);
    await phone.page.goto(`${server.baseUrl}/account`);
    expect(new URL(phone.page.url()).pathname).toBe('/login');

    await laptop.page.getByLabel('Current password').fill(PASSWORD);
    await laptop.page.getByLabel('New password (at least 8 characters)').fill('carol has a new one');
    await laptop.page.getByLabel('New password again').fill('carol has a new one');
    await laptop.page.getByRole('button', { name: 'Change password' }).click();
    await laptop.page.waitForURL((url) => url.pathname === '/account');
    expect(await laptop.page.locator('.notice').textContent()).toBe('Your password has been changed.');
    expect(laptop.cspErrors).toEqual([]);
    await Promise.all([laptop.context.close(), phone.context.close()]);
    const again = await signedInPage('carol', 'carol has a new one');
    await again.context.close();
  });

  it('without JavaScript, "Add a passkey" posts the form (no CSRF token in an address) and the page says a passkey needs JavaScript', async () => {
    await createUser(server.deps, 'dave');
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const addresses: string[] = [];
    page.on('request', (request) => addresses.push(request.url()));
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, 'dave');
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    await page.goto(`${server.baseUrl}/account`);

    await page.getByLabel('Name of the new passkey').fill('Work laptop');
    await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/without-javascript')),
      page.getByRole('button', { name: 'Add a passkey' }).click(),
    ]);
    await page.waitForURL((url) => url.pathname === '/account');
    expect(page.url()).toBe(`${server.baseUrl}/account`);
    expect(await page.locator('.notice').textContent()).toBe(
      'Adding a passkey needs JavaScript and a browser that can make passkeys. Turn JavaScript on or use another browser, then try again.',
    );
    expect(await page.locator('#no_passkeys').count()).toBe(1);
    expect(addresses.filter((address) => address.includes('_csrf') || address.includes('name='))).toEqual([]);
    await context.close();
  });
});
