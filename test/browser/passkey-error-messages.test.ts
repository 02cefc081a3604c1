import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import { launchBrowser, virtualAuthenticator } from '../helpers/browser.js';
import { createUser } from '../helpers/end-user.js';
import { closeAll, signInOnLoginPage } from '../helpers/relying-party-page.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// public/passkeys.js shows a failed ceremony in the page's language only: the browser's own error message is English
// whatever the page's language ("The authenticator was previously registered", "The relying party ID is not a
// registrable domain suffix of…") and goes to the console, never into the translated sentence. localhost, not
// 127.0.0.1: browsers refuse an IP address as a WebAuthn rp id.

const MESSAGES = {
  en: { signIn: 'The passkey sign-in did not work.', register: 'The passkey could not be added.' },
  de: { signIn: 'Die Anmeldung mit dem Passkey hat nicht funktioniert.', register: 'Der Passkey konnte nicht hinzugefügt werden.' },
} as const;

describe("passkeys.js: a failed ceremony's message is in the page's language only (Chromium)", () => {
  let server: TestServer;
  let baseUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    server = await buildTestServer({ config: { baseUrl }, env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
    await server.app.listen({ port, host: 'localhost' });
    browser = await launchBrowser();
  });
  afterAll(() => closeAll(browser, server));

  /** A browser with a virtual platform authenticator, the page in `language`, no autofill, its console collected. */
  async function device(language: string): Promise<{ page: Page; console: string[]; close: () => Promise<void> }> {
    const context = await browser.newContext({ extraHTTPHeaders: { 'accept-language': language } });
    const page = await context.newPage();
    await page.addInitScript(() => {
      // Runs in the page (tsconfig has no DOM types): only the button starts a passkey sign-in.
      const page = globalThis as unknown as { PublicKeyCredential: { isConditionalMediationAvailable: () => Promise<boolean> } };
      page.PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
    });
    await virtualAuthenticator(context, page);
    const console: string[] = [];
    page.on('console', (entry) => console.push(entry.text()));
    return { page, console, close: () => context.close() };
  }

  /** The message element's text once the script has shown it, and how many elements it holds. */
  async function shown(page: Page, id: string) {
    const message = page.locator(`#${id}`);
    await message.waitFor({ state: 'visible' });
    return { text: await message.textContent(), elements: await message.locator('*').count() };
  }

  for (const language of ['en', 'de'] as const) {
    it(`${language}: registering the same authenticator twice says the translated sentence alone`, async () => {
      await createUser(server.deps, `twice-${language}`);
      const { page, console, close } = await device(language);
      await page.goto(`${baseUrl}/login?ui_locales=en`);
      await signInOnLoginPage(page, `twice-${language}`);
      await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
      await page.goto(`${baseUrl}/account`);
      await page.locator('#passkey_register button[type="submit"]').click();
      await page.locator('#passkeys tbody tr').waitFor();
      // The same authenticator again: the options exclude its passkey, so the browser refuses (InvalidStateError).
      await page.locator('#passkey_register button[type="submit"]').click();
      expect(await shown(page, 'passkey_register_error')).toEqual({ text: MESSAGES[language].register, elements: 0 });
      expect(console.some((line) => /previously registered|already registered/i.test(line))).toBe(true);
      await close();
    });

    it(`${language}: a sign-in the browser refuses says the translated sentence alone`, async () => {
      const { page, console, close } = await device(language);
      // Options naming another site as the rp id: the browser refuses them with a SecurityError.
      await page.route('**/login/passkey/options', (route) =>
        route.fulfill({ json: { challenge: 'c2lnbi1pbi1jaGFsbGVuZ2U', rpId: 'example.com', userVerification: 'required' } }),
      );
      await page.goto(`${baseUrl}/login`);
      await page.locator('#passkey_sign_in').click();
      expect(await shown(page, 'passkey_error')).toEqual({ text: MESSAGES[language].signIn, elements: 0 });
      expect(console.some((line) => /relying party ID|example\.com/i.test(line))).toBe(true);
      await close();
    });
  }
});
