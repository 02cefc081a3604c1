import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTRIBUTE, openAdminBrowser, SCRIPT, type AdminBrowser } from '../helpers/admin-browser.js';
import { screenshot } from '../helpers/browser.js';

describe('admin pages in Chromium: /oauth/resources', () => {
  let admin: AdminBrowser;
  beforeAll(async () => {
    admin = await openAdminBrowser({ optionalScopes: ['write'] });
  });
  afterAll(() => admin?.close());

  it('an admin registers a resource whose name is markup (shown as text), edits it, then deletes it after confirming', async () => {
    const { server, page, problems, field, expectInert } = admin;
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
