import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminContext, openAdminBrowser, type AdminBrowser } from '../helpers/admin-browser.js';
import { createClient } from '../helpers/factories.js';
import { seriousViolations } from '../helpers/axe.js';
import { screenshot } from '../helpers/browser.js';
import { basicAuth, form, FORM } from '../helpers/test-server.js';

describe('admin pages in Chromium: /oauth/applications', () => {
  let admin: AdminBrowser;
  beforeAll(async () => {
    admin = await openAdminBrowser();
  });
  afterAll(() => admin?.close());

  const secretText = () => admin.page.locator('#secret').innerText();

  it('an admin creates, edits, rotates the secret of and deletes an application', async () => {
    const { page, problems } = admin;
    await page.goto('/oauth/applications');
    await expect(page.locator('h1').innerText()).resolves.toBe('Your applications');

    await page.getByRole('link', { name: 'New Application' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Browser App');
    await page.getByLabel('Redirect URI').fill('https://browser.example/cb\nhttp://127.0.0.1:9000/cb');
    await page.getByLabel('Scopes').fill('read');
    await page.getByLabel('Post-logout URIs').fill('https://browser.example/bye');
    await page.getByLabel('ID token signing algorithm').selectOption('ES256');
    await screenshot(page, 'admin-applications-new');
    await page.getByRole('button', { name: 'Submit' }).click();

    await expect(page.locator('h1').innerText()).resolves.toBe('Application: Browser App');
    await expect(page.locator('.notice').innerText()).resolves.toBe('Application created.');
    const uid = await page.locator('#application_id').innerText();
    const secret = await secretText();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect(page.locator('#confidential').innerText()).resolves.toBe('true');
    await expect(page.getByRole('link', { name: 'Authorize' }).first().getAttribute('href')).resolves.toContain(
      `client_id=${encodeURIComponent(uid)}`,
    );
    await expect(page.locator('#post_logout_redirect_uris').innerText()).resolves.toBe('https://browser.example/bye');
    await expect(page.locator('#id_token_signed_response_alg').innerText()).resolves.toBe('ES256');
    await expect(page.locator('#userinfo_signed_response_alg').innerText()).resolves.toBe('Plain JSON (default)');
    await screenshot(page, 'admin-applications-show');
    await expect(tokenStatus(uid, secret)).resolves.toBe(200);

    await page.reload();
    await expect(secretText()).resolves.toBe('Secret hashed');

    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.locator('h1').innerText()).resolves.toBe('Edit application');
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Browser App');
    await screenshot(page, 'admin-applications-edit');
    await page.getByLabel('Name', { exact: true }).fill('Renamed App');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toBe('Application updated.');
    await expect(page.locator('h1').innerText()).resolves.toBe('Application: Renamed App');

    await page.getByRole('link', { name: 'Rotate secret' }).click();
    await expect(page.locator('h1').innerText()).resolves.toBe('Rotate the secret?');
    await expect(seriousViolations(page)).resolves.toEqual([]);
    await expect(tokenStatus(uid, secret)).resolves.toBe(200);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toContain('Secret rotated.');
    const rotated = await secretText();
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(secret);
    await expect(tokenStatus(uid, secret)).resolves.toBe(401);
    await expect(tokenStatus(uid, rotated)).resolves.toBe(200);

    await page.getByRole('link', { name: 'Applications', exact: true }).click();
    const row = page.locator('tr', { hasText: 'Renamed App' });
    await expect(row.getAttribute('id')).resolves.toMatch(/^application_\d+$/);
    await expect(row.locator('td').nth(2).innerText()).resolves.toBe('Yes');
    await screenshot(page, 'admin-applications-index');

    await row.getByRole('link', { name: 'Destroy' }).click();
    await expect(page.locator('h1').innerText()).resolves.toBe('Are you sure?');
    await screenshot(page, 'admin-applications-delete-confirm');
    await page.getByRole('button', { name: 'Destroy' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toBe('Application deleted.');
    await expect(page.locator('tr', { hasText: 'Renamed App' }).count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });

  it('validation errors are shown beside the fields, and the form keeps what was typed', async () => {
    const { page, problems } = admin;
    await page.goto('/oauth/applications/new');
    await page.getByLabel('Name', { exact: true }).fill('<b>Bold</b> app');
    await page.getByLabel('Redirect URI').fill('http://insecure.example/cb#frag');
    await page.getByLabel('Scopes').fill('read admin');
    await page.getByLabel('Confidential').uncheck();
    await page.getByRole('button', { name: 'Submit' }).click();

    await expect(page.getByRole('alert').first().innerText()).resolves.toContain('Whoops! Check your form for possible errors');
    await expect(page.locator('#application_redirect_uri_errors').innerText()).resolves.toBe(
      'Cannot contain a fragment. Must be an HTTPS/SSL URI.',
    );
    await expect(page.locator('#application_scopes_errors').innerText()).resolves.toBe("Doesn't match those configured on the server.");
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('<b>Bold</b> app');
    await expect(page.getByLabel('Redirect URI').inputValue()).resolves.toBe('http://insecure.example/cb#frag');
    await expect(page.getByLabel('Confidential').isChecked()).resolves.toBe(false);
    await screenshot(page, 'admin-applications-errors');
    expect(problems).toEqual([]);
  });

  it('on a 375 px phone no admin page is wider than the screen: the menu wraps, a list scrolls in its region, the form fits (UI audit)', async () => {
    const created = await createClient(admin.server.deps, {
      name: 'A phone-wide application with a long name',
      redirectUri: 'https://phone.example.com/a/long/callback/path',
    });
    const context = await adminContext(admin.browser, admin.baseURL);
    try {
      const page = await context.newPage();
      await page.setViewportSize({ width: 375, height: 800 });
      for (const path of [
        '/oauth/applications',
        '/oauth/applications/new',
        `/oauth/applications/${created.application.id}/edit`,
        '/oauth/users',
        '/oauth/audit',
      ]) {
        await page.goto(path);
        const widths = await page.evaluate(() => {
          const { document, innerWidth } = globalThis as unknown as {
            document: { documentElement: { scrollWidth: number } };
            innerWidth: number;
          };
          return { page: document.documentElement.scrollWidth, screen: innerWidth };
        });
        expect({ path, ...widths }).toEqual({ path, page: widths.screen, screen: 375 });
      }
      await screenshot(page, 'admin-narrow-audit');
    } finally {
      await context.close();
    }
  });

  it('a wrong admin password gets 401', async () => {
    const stranger = await admin.browser.newContext({
      baseURL: admin.baseURL,
      httpCredentials: { username: 'admin', password: 'not the password' },
    });
    try {
      const response = await (await stranger.newPage()).goto('/oauth/applications');
      expect(response?.status()).toBe(401);
    } finally {
      await stranger.close();
    }
  });

  async function tokenStatus(uid: string, secret: string): Promise<number> {
    const response = await admin.server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(uid, secret) },
      payload: form({ grant_type: 'client_credentials' }),
    });
    return response.statusCode;
  }
});
