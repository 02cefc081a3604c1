import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { screenshot } from '../helpers/browser.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { chromiumPage, closeAll } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';
import { createFromMetadataDocument, createSelfRegistered } from '../integration/applications-self-registered-support.js';

// Issue 19 in Chromium: the consent page for a client nobody vetted (RFC 7591 or a Client ID Metadata Document)
// says so and shows the client's hostile metadata as inert text; an admin-made or approved client gets the usual page.

const NAME = '<script>window.__xss=1</script>"><img src=x onerror=window.__xss=1>';
const HOST_CALLBACK = 'https://client.example.com/callback';
const PKCE = { code_challenge: s256Challenge('a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789'), code_challenge_method: 'S256' };

describe('consent in Chromium for self-registered clients', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;
  let page: Page;
  let callback: ClientCallback;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await listeningTestServer({ optionalScopes: ['write'] });
    await createUser(server.deps, 'alice');
    callback = await clientCallbackServer();
    ({ browser, page } = await chromiumPage());
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
  });
  afterAll(() => closeAll(browser, server, callback));

  async function openConsent(application: ApplicationRecord, redirectUri = HOST_CALLBACK) {
    const url = new URL('/oauth/authorize', server.baseUrl);
    url.search = new URLSearchParams({
      client_id: application.uid,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'read',
      ...PKCE,
    }).toString();
    await page.goto(url.href);
    if (new URL(page.url()).pathname === '/login') {
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await expect(page.locator('h1').innerText()).resolves.toBe('Authorization required');
  }

  async function expectInert() {
    await expect(page.evaluate(() => (globalThis as { __xss?: number }).__xss)).resolves.toBeUndefined();
    await expect(page.locator('img').count()).resolves.toBe(0);
    await expect(page.locator('script').count()).resolves.toBe(0);
    const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    for (const href of hrefs) expect(href, href).toMatch(/^(https:|\/)/);
  }

  it('a dynamically registered client with XSS in client_name, client_uri and policy_uri: the notice, text shown literally', async () => {
    const client = await createSelfRegistered(server.deps, {
      name: NAME,
      clientUri: 'javascript:window.__xss=1',
      policyUri: 'http://client.example.com/privacy',
      tosUri: 'https://client.example.com/terms',
      logoUri: 'https://client.example.com/logo.png',
    });
    await openConsent(client);
    const notice = page.locator('#self-registered-notice');
    await expect(notice.innerText()).resolves.toContain(
      `This application registered itself; the operator of ${new URL(server.baseUrl).host} has not reviewed it.`,
    );
    await expect(notice.innerText()).resolves.toMatch(/It was registered at this server on \d{1,2} \w+ \d{4}\./);
    await expect(page.locator('#self-registered-return').innerText()).resolves.toBe('client.example.com');
    await expect(page.locator('.prompt strong').innerText()).resolves.toBe(NAME);
    await expect(page.locator('.prompt .self-declared').innerText()).resolves.toBe('(the name it gave itself)');
    // Only the https URI is a link, and it opens nothing of this page to the client's site.
    const links = notice.locator('a');
    await expect(links.count()).resolves.toBe(1);
    await expect(links.first().innerText()).resolves.toBe('Terms of service');
    await expect(links.first().getAttribute('href')).resolves.toBe('https://client.example.com/terms');
    await expect(links.first().getAttribute('rel')).resolves.toBe('noopener noreferrer nofollow');
    await expect(page.getByText('javascript:', { exact: false }).count()).resolves.toBe(0);
    await expectInert();
    await screenshot(page, 'consent-self-registered-dynamic');
    expect(problems).toEqual([]);
  });

  it('a Client ID Metadata Document client: where its details are published, and a loopback redirect is "this device"', async () => {
    const client = await createFromMetadataDocument(server.deps, {
      name: 'Doc <b>Client</b>',
      redirectUris: [callback.url],
      policyUri: '  javascript:window.__xss=1',
      clientUri: 'data:text/html,<script>window.__xss=1</script>',
    });
    await openConsent(client, callback.url);
    const notice = page.locator('#self-registered-notice');
    await expect(notice.innerText()).resolves.toContain('Its details are published at client.example/meta.json, not by this server.');
    await expect(page.locator('#self-registered-return').innerText()).resolves.toBe('an application on this device');
    await expect(page.locator('.prompt strong').innerText()).resolves.toBe('Doc <b>Client</b>');
    await expect(notice.locator('a').count()).resolves.toBe(0);
    await expectInert();
    await screenshot(page, 'consent-self-registered-metadata-document');

    // The notice informs; it does not stop the user: authorizing sends them back to the client with a code.
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.url));
    expect(new URL(page.url()).searchParams.get('code')).toMatch(/.+/);
    expect(problems).toEqual([]);
  });

  it('no notice for an admin-made client, nor once an admin approved a self-registered one', async () => {
    const admin = (await createClient(server.deps, { name: 'Admin App', redirectUri: HOST_CALLBACK, scopes: 'read' })).application;
    await openConsent(admin);
    await expect(page.locator('#self-registered-notice').count()).resolves.toBe(0);
    await expect(page.locator('.prompt').innerText()).resolves.toBe('Authorize Admin App to use your account?');

    const client = await createSelfRegistered(server.deps, { name: 'Vetted App' });
    await openConsent(client);
    await expect(page.locator('#self-registered-notice').count()).resolves.toBe(1);
    await server.deps.stores.applicationAdmin.update(client.id, { approvedAt: new Date() });
    await openConsent(client);
    await expect(page.locator('#self-registered-notice').count()).resolves.toBe(0);
    await expect(page.locator('.prompt').innerText()).resolves.toBe('Authorize Vetted App to use your account?');
    expect(problems).toEqual([]);
  });
});
