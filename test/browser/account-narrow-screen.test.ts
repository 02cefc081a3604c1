import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.js';
import { screenshot } from '../helpers/browser.js';
import { createClient, createUser, liveToken } from '../helpers/end-user.js';
import { closeAll, listeningServerAndChromium, signInOnLoginPage } from '../helpers/relying-party-page.js';
import { storedPasskey } from '../helpers/second-factor.js';
import type { TestServer } from '../helpers/test-server.js';

// The account page and the authorized applications page on a 320 px wide phone (WCAG 1.4.10 reflow), in English and
// German (the longest words): the page never scrolls sideways, every table's buttons are on screen and focusable, and
// axe-core finds nothing serious.

const PHONE = { width: 320, height: 640 };
// A phone browser's full description, as the sessions table shows it (summarised) with the whole string as its title.
const PHONE_BROWSER =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

describe('/account and /oauth/authorized_applications at 320 px (Chromium)', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;

  beforeAll(async () => {
    ({ server, browser } = await listeningServerAndChromium());
    const user = await createUser(server.deps, 'narrow');
    await server.deps.stores.passkeys.create(storedPasskey(user.id, 'cred-narrow', 'Arbeitslaptop'), new Date('2026-11-29T16:33:58Z'));
    const { application } = await createClient(server.deps, { name: 'Photo Printer' });
    await server.deps.stores.accessTokens.create(liveToken(application.id, user.id, ['read'], server.deps.now()));
  });
  afterAll(() => closeAll(browser, server));

  async function signedInPhone(): Promise<Page> {
    const context = await browser.newContext({ viewport: PHONE, userAgent: PHONE_BROWSER });
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, 'narrow');
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    return page;
  }

  /** The page's width beyond the window (0: no sideways scrolling). */
  const overflow = (page: Page) =>
    page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
        .documentElement;
      return root.scrollWidth - root.clientWidth;
    });

  /**
   * Each button of the page's tables: its name, and whether, once the keyboard reaches it (focus scrolls its table's
   * region, not the page), it lies wholly inside the window.
   */
  async function tableButtons(page: Page): Promise<Array<{ name: string; onScreen: boolean }>> {
    const buttons = page.locator('table button');
    const found: Array<{ name: string; onScreen: boolean }> = [];
    for (let index = 0; index < (await buttons.count()); index++) {
      const button = buttons.nth(index);
      await button.focus();
      const box = await button.boundingBox();
      const name = (await button.getAttribute('aria-label')) ?? (await button.textContent()) ?? '';
      found.push({ name, onScreen: (await button.isVisible()) && box !== null && box.x >= 0 && box.x + box.width <= PHONE.width });
    }
    return found;
  }

  /** Each table's scrolling region: its role, its name (the section's heading) and whether the keyboard reaches it. */
  const regions = (page: Page) =>
    page.locator('.table-scroll').evaluateAll((elements) =>
      elements.map((element) => ({
        role: element.getAttribute('role'),
        named: Boolean(element.getAttribute('aria-label') ?? element.getAttribute('aria-labelledby')),
        tabindex: element.getAttribute('tabindex'),
      })),
    );

  async function expectUsable(page: Page, name: string, buttonsAtLeast: number) {
    await screenshot(page, `narrow-${name}`);
    expect(await overflow(page), `${name} scrolls sideways`).toBe(0);
    const buttons = await tableButtons(page);
    expect(buttons.length).toBeGreaterThanOrEqual(buttonsAtLeast);
    expect(
      buttons.filter((button) => !button.onScreen),
      `${name}: buttons off screen`,
    ).toEqual([]);
    expect(await overflow(page), `${name} scrolls sideways once a button has the focus`).toBe(0);
    const tables = await page.locator('table').count();
    expect(await regions(page)).toEqual(Array.from({ length: tables }, () => ({ role: 'region', named: true, tabindex: '0' })));
    expect(await seriousViolations(page), name).toEqual([]);
  }

  for (const language of ['en', 'de'] as const) {
    it(`${language}: the sessions and passkeys tables and the authorized applications fit, their buttons on screen`, async () => {
      const page = await signedInPhone();
      await page.setExtraHTTPHeaders({ 'accept-language': language });
      await page.goto(`${server.baseUrl}/account`);
      expect(await page.locator('html').getAttribute('lang')).toBe(language);
      // Sign out (one per session) and the passkey's rename and remove.
      await expectUsable(page, `account-${language}`, 3);

      await page.goto(`${server.baseUrl}/oauth/authorized_applications`);
      await expectUsable(page, `authorized-applications-${language}`, 1);
      await page.context().close();
    });
  }
});
