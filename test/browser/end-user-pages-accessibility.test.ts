import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import { seriousViolations } from '../helpers/axe.js';
import { addVirtualAuthenticator, launchBrowser, screenshot } from '../helpers/browser.js';
import { DEVICE_FLOW_CONFIG } from '../helpers/device-flow.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, type ClientCallback } from '../helpers/listening-server.js';
import { closeAll } from '../helpers/relying-party-page.js';
import { codeAt } from '../helpers/second-factor.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 35 item 7: every end-user page passes axe-core in Chromium (no serious or critical violation) in English and
// German, the login and consent pages work with the keyboard alone, and the README's screenshots come from here.

const VIEWPORT = { width: 900, height: 700 };
/** Set to rewrite docs/screenshots/ (the README's images); otherwise they go to test-results/ like every other. */
const DOCS_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';

describe('end-user pages: axe-core, the keyboard alone, the README screenshots', () => {
  let server: TestServer;
  let baseUrl: string;
  let callback: ClientCallback;
  let browser: Browser;
  let clientId: string;
  let clientSecret: string;

  beforeAll(async () => {
    // localhost rather than 127.0.0.1: browsers refuse an IP address as a WebAuthn rp id.
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    server = await buildTestServer({
      config: { baseUrl, openid: { enabled: true }, ...DEVICE_FLOW_CONFIG },
      env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    });
    await server.app.listen({ port, host: 'localhost' });
    callback = await clientCallbackServer();
    const { application, plainSecret } = await createClient(server.deps, { name: 'Photo Printer', redirectUri: callback.url });
    clientId = application.uid;
    clientSecret = plainSecret!;
    browser = await launchBrowser();
  });
  afterAll(() => closeAll(browser, server, callback));

  async function expectAccessible(page: Page, name: string) {
    expect(await seriousViolations(page), `${name} at ${page.url()}`).toEqual([]);
  }

  async function readmeScreenshot(page: Page, name: string) {
    if (!DOCS_SCREENSHOTS) return screenshot(page, name);
    const path = join(import.meta.dirname, '../../docs/screenshots', `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    return path;
  }

  const authorizeUrl = (parameters: Record<string, string>) =>
    `${baseUrl}/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: callback.url, response_type: 'code', ...parameters })}`;

  async function device(locale: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ locale, viewport: VIEWPORT });
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    // Without conditional mediation the login page offers its passkey button and does not sign in by itself.
    await page.addInitScript(() => {
      const page = globalThis as unknown as { PublicKeyCredential: { isConditionalMediationAvailable: () => Promise<boolean> } };
      page.PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
    });
    return { context, page };
  }

  async function passwordStep(page: Page, username: string) {
    await page.goto(`${baseUrl}/login`);
    await page.locator('#username').fill(username);
    await page.locator('#password').fill(PASSWORD);
    await page.locator('form[action="/login"] button[type="submit"]').click();
  }

  for (const [language, locale] of [
    ['en', 'en-GB'],
    ['de', 'de-DE'],
  ] as const) {
    it(`every end-user page in ${language} has no serious or critical axe violation`, async () => {
      const username = `ada-${language}`;
      const user = await createUser(server.deps, username);
      // A sign-in identity (issue 37), as an upstream sign-in leaves it, so that the account page's list is checked too.
      await server.testDatabase.database.sql.query(
        'INSERT INTO oauth_federated_subjects (issuer, subject, user_id, created_at, email) VALUES ($1, $2, $3, now(), $4)',
        ['https://accounts.google.com', `a11y-${language}`, user.id, `${username}@gmail.com`],
      );
      const { context, page } = await device(locale);

      await passwordStep(page, username);
      await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
      expect(await page.locator('html').getAttribute('lang')).toBe(language);
      await expectAccessible(page, 'authorized applications, none yet');

      await page.goto(`${baseUrl}/account/second-factor`);
      await page.locator('.qr-code svg').waitFor();
      await expectAccessible(page, 'TOTP enrolment');
      await readmeScreenshot(page, `totp-enrolment-${language}`);
      const secret = new URL((await page.locator('#otpauth_uri').getAttribute('href'))!).searchParams.get('secret')!;
      await page.locator('#current_password').fill(PASSWORD);
      await page.locator('#code').fill(await codeAt(secret, server.clock.now));
      await page.locator('form button[type="submit"]').click();
      await page.locator('#recovery_codes').waitFor();
      await expectAccessible(page, 'recovery codes');

      await page.goto(`${baseUrl}/account`);
      await page.locator('#passkey_register button[type="submit"]').click();
      await page.locator('#passkeys tbody tr').waitFor();
      expect(await page.locator('#identities tbody tr').count()).toBe(1);
      await expectAccessible(page, 'account with a passkey and TOTP');
      await readmeScreenshot(page, `account-${language}`);
      // A blank new name (spaces pass the field's `required`): the page again, the message at that passkey's field.
      await page.locator('#passkeys tbody tr input[name="name"]').fill('   ');
      await page.locator('#passkeys tbody tr form[action$="/rename"] button[type="submit"]').click();
      await page.locator('#passkeys tbody tr p.error[role="alert"]').waitFor();
      expect(await page.locator('#passkeys tbody tr input[name="name"]').getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(page, 'account with a refused passkey name');

      await page.goto(authorizeUrl({ scope: 'read write', state: 'a11y' }));
      await page.locator('#oauth-permissions').waitFor();
      await expectAccessible(page, 'consent');
      await readmeScreenshot(page, `consent-${language}`);
      await Promise.all([
        page.waitForURL((url) => url.href.startsWith(callback.url)),
        page.locator('#oauth-permissions ~ .actions form:first-child button').click(),
      ]);
      // The client redeems the code, so the application is listed with its Revoke button.
      const token = await fetch(`${baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}` },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: new URL(page.url()).searchParams.get('code')!,
          redirect_uri: callback.url,
        }),
      });
      expect(token.status).toBe(200);
      await page.goto(`${baseUrl}/oauth/authorized_applications`);
      await page.locator('form button.danger').waitFor();
      await expectAccessible(page, 'authorized applications with one');

      await page.goto(`${baseUrl}/device`);
      await expectAccessible(page, 'device');
      await page.goto(authorizeUrl({ client_id: 'unknown' }));
      await expectAccessible(page, 'error');
      const notFound = await page.goto(`${baseUrl}/nonexistent-page`);
      expect(notFound?.status()).toBe(404);
      expect(await page.locator('html').getAttribute('lang')).toBe(language);
      await expectAccessible(page, 'not found');
      await page.goto(`${baseUrl}/logout`);
      await expectAccessible(page, 'logout');

      await page.locator('form[action="/logout"] button').click();
      await page.goto(`${baseUrl}/login`);
      await page.locator('#passkey_sign_in').waitFor();
      await expectAccessible(page, 'login with a passkey');
      await readmeScreenshot(page, `login-${language}`);

      await passwordStep(page, username);
      await page.waitForURL((url) => url.pathname === '/login/second-factor');
      // The user has an authenticator app and a passkey: the code form and the passkey button.
      await page.locator('#passkey_second_factor').waitFor();
      await expectAccessible(page, 'second-factor code or passkey');
      await context.close();
    });
  }

  it('signs in and approves with the keyboard alone, in a sensible Tab order, with a visible focus style', async () => {
    await createUser(server.deps, 'kim');
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const focused = () =>
      page.evaluate(() => {
        const active = (globalThis as unknown as { document: { activeElement: { id: string; textContent: string } | null } }).document
          .activeElement;
        return active?.id || active?.textContent?.trim();
      });

    await page.goto(authorizeUrl({ scope: 'read', state: 'keyboard' }));
    await page.waitForURL((url) => url.pathname === '/login');
    // Autofocus lands at the page's next rendering update, which on a busy machine comes after the load event.
    await expect.poll(focused, { timeout: 10_000 }).toBe('username');
    await page.keyboard.type('kim');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Sign in');
    // The focused button shows a focus ring (style.css :focus-visible), not only the browser default.
    expect(
      await page.evaluate(() => {
        const doc = globalThis as unknown as {
          document: { activeElement: unknown };
          getComputedStyle(e: unknown): { outlineStyle: string };
        };
        return doc.getComputedStyle(doc.document.activeElement).outlineStyle;
      }),
    ).toBe('solid');
    await Promise.all([page.waitForURL((url) => url.pathname === '/oauth/authorize'), page.keyboard.press('Enter')]);

    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Authorize');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Deny');
    await page.keyboard.press('Shift+Tab');
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.url)), page.keyboard.press('Space')]);
    const redirect = new URL(page.url());
    expect(redirect.searchParams.get('state')).toBe('keyboard');
    expect(redirect.searchParams.get('code')).toBeTruthy();
    await context.close();
  });
});
