import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { ConfigInput } from '../../src/config/types.js';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { launchBrowser } from './browser.js';
import { buildTestServer, type TestServer } from './test-server.js';

export const ADMIN_PASSWORD = 'admin password for the browser';

/** XSS payloads for free-text fields: one for element content, one that breaks out of an attribute. */
export const SCRIPT = '<script>window.__xss=1</script>';
export const ATTRIBUTE = '"><img src=x onerror=window.__xss=1>';

/** A browser context that sends the admin's Basic credentials with every request. */
export function adminContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  return browser.newContext({ baseURL, httpCredentials: { username: 'admin', password: ADMIN_PASSWORD } });
}

export interface AdminBrowser {
  server: TestServer;
  browser: Browser;
  baseURL: string;
  /** A page signed in as the admin. */
  page: Page;
  /** Console errors and script errors seen on the page; a test ends with `expect(problems).toEqual([])`. */
  problems: string[];
  /** The form control with exactly this label. */
  field(label: string): Locator;
  /** Nothing of a payload ran or became an element: no flag, no img, no script. */
  expectInert(): Promise<void>;
  close(): Promise<void>;
}

/** A listening test server with an admin password, and Chromium on one of its pages as the admin. */
export async function openAdminBrowser(config: ConfigInput & Record<string, unknown> = {}): Promise<AdminBrowser> {
  const server = await buildTestServer({
    config: { ...config, admin: { passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) } },
  });
  let browser: Browser | undefined;
  let page: Page;
  let baseURL: string;
  try {
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    baseURL = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    page = await (await adminContext(browser, baseURL)).newPage();
  } catch (error) {
    // The caller's afterAll only gets what is returned: close what was opened before the failure.
    await browser?.close();
    await server.close();
    throw error;
  }
  // A CSP violation or script error would show up here (the pages need no JavaScript at all). Status codes
  // are checked by the tests themselves (422 for a form with errors, and Chromium asks for /favicon.ico).
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return {
    server,
    browser,
    baseURL,
    page,
    problems,
    field: (label) => page.getByLabel(label, { exact: true }),
    async expectInert() {
      await expect(page.evaluate(() => (globalThis as { __xss?: number }).__xss)).resolves.toBeUndefined();
      await expect(page.locator('img').count()).resolves.toBe(0);
      await expect(page.locator('script').count()).resolves.toBe(0);
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
