import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { ADMIN_PASSWORD } from '../helpers/admin-browser.js';
import { screenshot } from '../helpers/browser.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, type ClientCallback } from '../helpers/listening-server.js';
import { closeAll, listeningServerAndChromium, signInOnLoginPage } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// A name may be 255 characters without a space (SPEC 3.6), and so may a user name or a redirect URI's path: such a
// value wraps inside its box on the pages that show it, and never makes the page wider than the window.

const VIEWPORT = { width: 1280, height: 800 };
const LONG_NAMES = {
  latin: 'L'.repeat(200),
  arabic: 'تطبيقالصور'.repeat(20),
  emoji: '🦊'.repeat(120),
};
const LONG_USERNAME = 'U'.repeat(200);
const LONG_PATH = `/callback/${'r'.repeat(240)}`;

describe('long names, user names and URIs wrap inside their box (Chromium, 1280 px)', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;
  let callback: ClientCallback;
  const applications: Array<{ kind: string; id: number; uid: string; secret: string }> = [];

  beforeAll(async () => {
    callback = await clientCallbackServer();
    ({ server, browser } = await listeningServerAndChromium({ admin: { passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) } }));
    for (const [kind, name] of Object.entries(LONG_NAMES)) {
      const { application, plainSecret } = await createClient(server.deps, {
        name,
        redirectUri: `${callback.url}\nhttps://client.example.com${LONG_PATH}`,
      });
      applications.push({ kind, id: application.id, uid: application.uid, secret: plainSecret! });
    }
    const user = await createUser(server.deps, LONG_USERNAME);
    // A sign-in identity (issue 37) with a long issuer and email, as an upstream sign-in leaves one, for /account.
    await server.testDatabase.database.sql.query(
      'INSERT INTO oauth_federated_subjects (issuer, subject, user_id, created_at, email) VALUES ($1, $2, $3, now(), $4)',
      [`https://login.example.com/${'t'.repeat(120)}`, 'long-values', user.id, `${'e'.repeat(120)}@example.com`],
    );
  });
  afterAll(() => closeAll(browser, server, callback));

  /** How far the document sticks out of the window on the right, in CSS pixels (0 when it fits). */
  async function overflow(page: Page): Promise<number> {
    return page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
        .documentElement;
      return root.scrollWidth - root.clientWidth;
    });
  }

  async function expectFits(page: Page, name: string) {
    const path = new URL(page.url()).pathname;
    await screenshot(page, `long-names-${name}`);
    expect(await overflow(page), `${name} (${path}) is wider than the window`).toBe(0);
  }

  it('the consent page and the authorized applications, for a long user name and long application names', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/login`);
    await signInOnLoginPage(page, LONG_USERNAME, PASSWORD);
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');

    for (const { kind, uid, secret } of applications) {
      const query = new URLSearchParams({ client_id: uid, redirect_uri: callback.url, response_type: 'code', scope: 'read' });
      await page.goto(`${server.baseUrl}/oauth/authorize?${query}`);
      await expect(page.locator('p.prompt strong').textContent()).resolves.toBe(LONG_NAMES[kind as keyof typeof LONG_NAMES]);
      await expectFits(page, `consent-${kind}`);
      await Promise.all([
        page.waitForURL((url) => url.href.startsWith(callback.url)),
        page.getByRole('button', { name: 'Authorize' }).click(),
      ]);
      // The authorized applications list an application once it holds a token of the user.
      const code = new URL(page.url()).searchParams.get('code')!;
      const token = await fetch(`${server.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${btoa(`${uid}:${secret}`)}` },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback.url }),
      });
      expect(token.status).toBe(200);
    }

    await page.goto(`${server.baseUrl}/oauth/authorized_applications`);
    await expect(page.locator('main table tbody tr').count()).resolves.toBe(applications.length);
    await expectFits(page, 'authorized-applications');
    await page.goto(`${server.baseUrl}/account`);
    await expect(page.locator('#identities tbody tr').count()).resolves.toBe(1);
    await expectFits(page, 'account');
    await context.close();
  });

  it('the admin list, show, edit, delete and rotate-secret pages of such applications, and the user pages', async () => {
    const admin = await browser.newContext({
      baseURL: server.baseUrl,
      viewport: VIEWPORT,
      httpCredentials: { username: 'admin', password: ADMIN_PASSWORD },
    });
    const page = await admin.newPage();
    await page.goto('/oauth/applications');
    await expect(page.locator('table.applications tbody tr').count()).resolves.toBe(applications.length);
    await expectFits(page, 'admin-applications');

    for (const { kind, id } of applications) {
      await page.goto(`/oauth/applications/${id}`);
      await expect(page.locator('h1').textContent()).resolves.toBe(`Application: ${LONG_NAMES[kind as keyof typeof LONG_NAMES]}`);
      await expectFits(page, `admin-application-${kind}`);
    }
    const { id } = applications[0]!;
    await page.goto(`/oauth/applications/${id}/edit`);
    await expectFits(page, 'admin-application-edit');
    await page.goto(`/oauth/applications/${id}/delete`);
    await expectFits(page, 'admin-application-delete');
    await page.goto(`/oauth/applications/${id}/rotate_secret`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Rotate the secret?');
    await expectFits(page, 'admin-application-rotate-secret');

    await page.goto('/oauth/users');
    await expectFits(page, 'admin-users');
    await page.getByRole('link', { name: LONG_USERNAME }).click();
    await expectFits(page, 'admin-user');
    await admin.close();
  });
});
