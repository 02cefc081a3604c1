import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.js';
import { screenshot } from '../helpers/browser.js';
import { DEVICE_FLOW_CONFIG } from '../helpers/device-flow.js';
import { createUser } from '../helpers/end-user.js';
import { closeAll, listeningServerAndChromium, signInOnLoginPage } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// Accessibility audit c, finding 1: an error the server renders is tied to its field, as Chromium's accessibility tree
// shows it to a screen reader: the field is invalid, its description is the message, and it has the focus (so the
// message is read out with it). The other pages' markup is checked in test/integration/end-user-page-errors.test.ts.

describe('errors on the login and device pages in Chromium: the field is invalid, described by the message, focused', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;

  beforeAll(async () => {
    ({ server, browser } = await listeningServerAndChromium(DEVICE_FLOW_CONFIG));
    await createUser(server.deps, 'alice');
  });
  afterAll(() => closeAll(browser, server));

  /** The field as Chromium's accessibility tree has it: its invalid state, its computed description, whether it is focused. */
  async function accessibleField(context: BrowserContext, page: Page, selector: string) {
    const cdp = await context.newCDPSession(page);
    try {
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
      const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
      const node = nodes[0]!;
      const property = (name: string) => node.properties?.find((candidate) => candidate.name === name)?.value.value as unknown;
      return { invalid: property('invalid') ?? null, description: node.description?.value ?? null, focused: property('focused') === true };
    } finally {
      await cdp.detach();
    }
  }

  /** The ids the field's aria-describedby names, and whether the page's focused element is that field. */
  const domField = (page: Page, selector: string) =>
    page.locator(selector).evaluate((input) => ({
      invalid: input.getAttribute('aria-invalid'),
      describedBy: (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id: string) => id !== ''),
      focused: input === (input.ownerDocument as unknown as { activeElement: unknown }).activeElement,
    }));

  /**
   * Waits for the page's autofocus to land on the field: Chromium applies it at the page's next rendering update, which
   * on a busy machine comes after the load event that goto and the form's answer wait for.
   */
  const focusLandsOn = (page: Page, selector: string) =>
    expect.poll(async () => (await domField(page, selector)).focused, { timeout: 10_000 }).toBe(true);

  it('login after a wrong password: the password field is invalid, described by the message, and has the focus', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/login`);
    await focusLandsOn(page, '#username');
    expect(await accessibleField(context, page, '#username')).toMatchObject({ invalid: 'false', focused: true });

    await signInOnLoginPage(page, 'alice', 'not the password');
    const message = page.getByRole('alert');
    await message.waitFor();
    const text = (await message.textContent())!.trim();
    expect(text).toBe('Invalid username or password.');
    const messageId = await message.getAttribute('id');
    expect(messageId).toBeTruthy();

    await focusLandsOn(page, '#password');
    expect(await domField(page, '#password')).toEqual({ invalid: 'true', describedBy: [messageId], focused: true });
    expect(await accessibleField(context, page, '#password')).toEqual({ invalid: 'true', description: text, focused: true });
    // The user name kept its value and is described by the message too, but no longer takes the focus.
    expect(await page.locator('#username').inputValue()).toBe('alice');
    expect(await accessibleField(context, page, '#username')).toEqual({ invalid: 'true', description: text, focused: false });
    expect(await page.locator('[autofocus]').count()).toBe(1);
    await screenshot(page, 'login-wrong-password');
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('device page after a wrong code: #user_code is invalid, described by the message, and has the focus', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, 'alice');
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    await page.goto(`${server.baseUrl}/device`);
    await focusLandsOn(page, '#user_code');
    expect(await accessibleField(context, page, '#user_code')).toMatchObject({ invalid: 'false', description: null, focused: true });

    await page.locator('#user_code').fill('BCDF-GHJK');
    await page.locator('form[action="/device"] button[type="submit"]').click();
    const message = page.getByRole('alert');
    await message.waitFor();
    const text = (await message.textContent())!.trim();
    expect(text).toContain('That code is not valid');
    const messageId = await message.getAttribute('id');
    expect(messageId).toBeTruthy();

    await focusLandsOn(page, '#user_code');
    expect(await domField(page, '#user_code')).toEqual({ invalid: 'true', describedBy: [messageId], focused: true });
    expect(await accessibleField(context, page, '#user_code')).toEqual({ invalid: 'true', description: text, focused: true });
    await screenshot(page, 'device-wrong-code');
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
