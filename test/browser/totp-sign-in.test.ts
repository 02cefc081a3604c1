import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, screenshot } from '../helpers/browser.js';
import { createUser, PASSWORD } from '../helpers/end-user.js';
import { closeAll, listeningServerAndChromium, signInOnLoginPage } from '../helpers/relying-party-page.js';
import { codeAt } from '../helpers/second-factor.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 35 acceptance: TOTP enrolment and sign-in in Chromium, with codes computed by the test from the secret behind
// the QR code (the otpauth URI on the page); a recovery code; a replayed code refused. Under the strict CSP.

const STEP = 30;

describe('TOTP second factor in Chromium', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;
  beforeAll(async () => ({ server, browser } = await listeningServerAndChromium()));
  afterAll(() => closeAll(browser, server));

  async function passwordStep(page: Page, username: string) {
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, username);
    await page.waitForURL((url) => url.pathname === '/login/second-factor');
  }

  async function signOut(page: Page) {
    await page.goto(`${server.baseUrl}/account`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/login');
  }

  it('enrols from the account page, signs in with password and code, refuses a replayed code, and takes a recovery code once', async () => {
    await createUser(server.deps, 'tina');
    const context = await browser.newContext();
    const page = await context.newPage();
    const cspErrors = cspViolations(page);
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, 'tina');
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');

    await page.goto(`${server.baseUrl}/account`);
    await page.getByRole('link', { name: 'Set up two-step verification' }).click();
    await page.waitForURL((url) => url.pathname === '/account/second-factor');
    await expect(page.getByRole('img', { name: 'QR code for your authenticator app' }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'totp-enrolment');
    const uri = new URL((await page.locator('#otpauth_uri').getAttribute('href'))!);
    const secret = uri.searchParams.get('secret')!;
    // The key typed by hand is the same secret, in groups of four.
    expect((await page.locator('#totp_secret').textContent())!.replace(/\s/g, '')).toBe(secret);
    await page.getByLabel('Current password').fill(PASSWORD);
    // Typed as the app shows it, in two groups: the field's pattern lets the browser send it, and it is the code.
    const enrolmentCode = await codeAt(secret, server.clock.now);
    await page.getByLabel('Then enter the 6-digit code the app shows').fill(`${enrolmentCode.slice(0, 3)} ${enrolmentCode.slice(3)}`);
    await page.getByRole('button', { name: 'Confirm' }).click();
    const recoveryCodes = await page.locator('#recovery_codes code').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL((url) => url.pathname === '/account');
    expect(await page.locator('#second_factor').textContent()).toContain('Two-step verification is on');
    await signOut(page);

    server.clock.advance(STEP);
    const code = await codeAt(secret, server.clock.now);
    await passwordStep(page, 'tina');
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    await signOut(page);

    await passwordStep(page, 'tina');
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('That code is not valid.');
    await page.getByLabel('Code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    await page.goto(`${server.baseUrl}/account`);
    expect(await page.locator('#second_factor').textContent()).toContain('Unused recovery codes: 9.');
    expect(cspErrors).toEqual([]);
    await context.close();
  });

  it('Cancel on the second step ends it: back on /login, and the second step is gone', async () => {
    await createUser(server.deps, 'tom');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, 'tom');
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    await page.goto(`${server.baseUrl}/account/second-factor`);
    const secret = new URL((await page.locator('#otpauth_uri').getAttribute('href'))!).searchParams.get('secret')!;
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('Then enter the 6-digit code the app shows').fill(await codeAt(secret, server.clock.now));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('link', { name: 'Continue' }).click();
    await signOut(page);

    await passwordStep(page, 'tom');
    // The code field is required, and Cancel still goes (formnovalidate).
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.goto(`${server.baseUrl}/login/second-factor`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.locator('.notice').textContent()).toContain('Please sign in again.');
    await context.close();
  });
});
