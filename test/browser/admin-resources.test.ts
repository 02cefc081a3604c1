import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

const ADMIN_PASSWORD = 'admin password for the browser';
const SCRIPT = '<script>window.__xss=1</script>';
const ATTRIBUTE = '"><img src=x onerror=window.__xss=1>';

describe('admin pages in Chromium: /oauth/resources', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await buildTestServer({
      config: { optionalScopes: ['write'], admin: { passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) } },
    });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    const baseURL = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL, httpCredentials: { username: 'admin', password: ADMIN_PASSWORD } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const field = (label: string) => page.getByLabel(label, { exact: true });
  /** Nothing of a payload ran or became an element: no flag, no img, no script. */
  const expectInert = async () => {
    await expect(page.evaluate(() => (globalThis as { __xss?: number }).__xss)).resolves.toBeUndefined();
    await expect(page.locator('img').count()).resolves.toBe(0);
    await expect(page.locator('script').count()).resolves.toBe(0);
  };

  it('an admin registers a resource whose name is markup (shown as text), edits it, then deletes it after confirming', async () => {
    await page.goto('/oauth/applications');
    await page.getByRole('link', { name: 'Resources', exact: true }).click();
    await expect(page.locator('h1').innerText()).resolves.toBe('Resources');
    await page.getByRole('link', { name: 'New resource' }).click();

    await field('URI').fill('https://api.example.com');
    await field('Name').fill(SCRIPT);
    await field('Scopes').fill('read write');
    await field('Access token lifetime').fill('900');
    await expect(field('Token format').inputValue()).resolves.toBe('opaque');
    await screenshot(page, 'admin-resources-new');
    await page.getByRole('button', { name: 'Submit' }).click();

    await expect(page.locator('.notice').innerText()).resolves.toBe('Resource created.');
    await expect(page.locator('h1').innerText()).resolves.toBe(`Resource: ${SCRIPT}`);
    await expect(page.locator('#resource_name').innerText()).resolves.toBe(SCRIPT);
    await expect(page.locator('#resource_uri').innerText()).resolves.toBe('https://api.example.com');
    await expect(page.locator('#resource_access_token_lifetime').innerText()).resolves.toBe('900 seconds');
    await expectInert();
    await screenshot(page, 'admin-resources-show');

    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(field('Name').inputValue()).resolves.toBe(SCRIPT);
    // A refused value comes back as text beside its message.
    await field('Name').fill(ATTRIBUTE);
    await field('Scopes').fill('read delete');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.locator('#resource_scopes_errors').innerText()).resolves.toContain(
      'Has "delete", which is not a scope of this server',
    );
    await expect(field('Name').inputValue()).resolves.toBe(ATTRIBUTE);
    await expectInert();
    await screenshot(page, 'admin-resources-errors');
    await field('Scopes').fill('read');
    await field('Access token lifetime').fill('');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toBe('Resource updated.');
    await expect(page.locator('#resource_name').innerText()).resolves.toBe(ATTRIBUTE);
    await expect(page.locator('#resource_scopes').innerText()).resolves.toBe('read');
    await expect(page.locator('#resource_access_token_lifetime').innerText()).resolves.toMatch(/^Server default/);

    await page.getByRole('link', { name: 'Resources', exact: true }).click();
    const row = page.locator('tr', { hasText: 'https://api.example.com' });
    await expect(row.locator('td').first().innerText()).resolves.toBe(ATTRIBUTE);
    await expectInert();
    await screenshot(page, 'admin-resources-index');

    await row.getByRole('link').first().click();
    await page.getByRole('link', { name: 'Delete' }).click();
    await expect(page.locator('h1').innerText()).resolves.toBe('Are you sure?');
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toBe('Resource deleted.');
    await expect(page.locator('main').innerText()).resolves.toContain('No resources yet.');
    expect(await server.deps.stores.resources.list()).toEqual([]);
    expect(problems).toEqual([]);
  });
});
