import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { ATTRIBUTE, openAdminBrowser, SCRIPT, type AdminBrowser } from '../helpers/admin-browser.js';
import { screenshot } from '../helpers/browser.js';
import { createClient } from '../helpers/factories.js';
import { createFromMetadataDocument, createSelfRegistered } from '../integration/applications-self-registered-support.js';

// Issue 19 in Chromium: the admin sees self-registered clients marked in the list and filters them, reads their
// registration metadata as inert text on the show page, approves, disables (and /oauth/authorize then shows
// the error page), enables and deletes them.

const CALLBACK = 'https://client.example.com/callback';

describe('admin pages in Chromium: self-registered clients', () => {
  let admin: AdminBrowser;
  beforeAll(async () => {
    admin = await openAdminBrowser();
  });
  afterAll(() => admin?.close());

  const authorizeUrl = (uid: string) =>
    `/oauth/authorize?${new URLSearchParams({
      client_id: uid,
      redirect_uri: CALLBACK,
      response_type: 'code',
      code_challenge: s256Challenge('a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789'),
      code_challenge_method: 'S256',
    })}`;

  it('the list marks self-registered, metadata-document, unapproved and disabled clients, and filters them', async () => {
    const { page, problems, server } = admin;
    await createClient(server.deps, { name: 'Admin Made' });
    await createSelfRegistered(server.deps, { name: `Dyn ${SCRIPT}` });
    await createFromMetadataDocument(server.deps, { name: 'From Document', approvedAt: new Date() });
    await createSelfRegistered(server.deps, { name: 'Switched Off', disabledAt: new Date() });

    await page.goto('/oauth/applications');
    const row = (name: string) => page.locator('tr', { hasText: name });
    const badges = (name: string) => row(name).locator('.badge').allInnerTexts();
    await expect(badges('Admin Made')).resolves.toEqual([]);
    await expect(badges(`Dyn ${SCRIPT}`)).resolves.toEqual(['Self-registered', 'Not approved']);
    await expect(badges('From Document')).resolves.toEqual(['Metadata document']);
    await expect(badges('Switched Off')).resolves.toEqual(['Self-registered', 'Not approved', 'Disabled']);
    await admin.expectInert();
    await screenshot(page, 'admin-self-registered-index');

    await page.getByRole('link', { name: 'Awaiting approval' }).click();
    expect(new URL(page.url()).search).toBe('?filter=awaiting_approval');
    await expect(page.locator('tbody tr').count()).resolves.toBe(2);
    await expect(row('From Document').count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Self-registered', exact: true }).click();
    await expect(page.locator('tbody tr').count()).resolves.toBe(3);
    await expect(row('Admin Made').count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Disabled', exact: true }).click();
    await expect(page.locator('tbody tr').allInnerTexts()).resolves.toEqual([expect.stringContaining('Switched Off')]);
    expect(problems).toEqual([]);
  });

  it('the show page prints the metadata as text (https-only links, no logo); approve, disable, enable, delete', async () => {
    const { page, problems, server, browser, baseURL } = admin;
    const client = await createSelfRegistered(server.deps, {
      name: `Hostile ${ATTRIBUTE}`,
      clientUri: 'javascript:window.__xss=1',
      policyUri: 'https://client.example.com/privacy',
      tosUri: 'http://client.example.com/tos',
      logoUri: 'https://client.example.com/logo.png',
      contacts: [SCRIPT],
      scopes: ['read'],
    });
    await page.goto(`/oauth/applications/${client.id}`);
    await expect(page.locator('#registered_by').innerText()).resolves.toBe('Self-registered');
    await expect(page.locator('#approval').innerText()).resolves.toContain('Not approved');
    const metadata = page.locator('#client_metadata');
    await expect(metadata.innerText()).resolves.toContain('javascript:window.__xss=1');
    await expect(metadata.innerText()).resolves.toContain('http://client.example.com/tos');
    await expect(metadata.innerText()).resolves.toContain(SCRIPT);
    await expect(metadata.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).resolves.toEqual([
      'https://client.example.com/privacy',
    ]);
    await expect(metadata.locator('a').getAttribute('rel')).resolves.toBe('noopener noreferrer nofollow');
    await admin.expectInert();
    await screenshot(page, 'admin-self-registered-show');

    await page.getByRole('button', { name: 'Approve' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toBe('Application approved.');
    await expect(page.locator('#approval').innerText()).resolves.toMatch(/^Approved on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await expect(page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);

    await expect(page.getByText('Disabling revokes nothing by itself').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toContain('Application disabled');
    await expect(page.locator('#state').innerText()).resolves.toMatch(/^Disabled on /);
    await screenshot(page, 'admin-self-registered-disabled');

    // A user following the client's authorization link gets the error page, not a redirect to the client.
    const user = await (await browser.newContext({ baseURL })).newPage();
    const refused = await user.goto(authorizeUrl(client.uid));
    expect(refused?.status()).toBe(401);
    expect(new URL(user.url()).pathname).toBe('/oauth/authorize');
    await expect(user.locator('h1').innerText()).resolves.toBe('An error has occurred');
    await expect(user.locator('pre').innerText()).resolves.toBe('This application has been disabled by the administrator of this server.');
    await screenshot(user, 'authorize-disabled-client');

    await page.getByRole('button', { name: 'Enable' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toBe('Application enabled.');
    await expect(page.locator('#state').innerText()).resolves.toBe('Enabled');
    await user.goto(authorizeUrl(client.uid));
    expect(new URL(user.url()).pathname).toBe('/login');

    await page.getByRole('link', { name: 'Destroy' }).click();
    await page.getByRole('button', { name: 'Destroy' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toBe('Application deleted.');
    await expect(server.deps.stores.applications.findById(client.id)).resolves.toBeNull();
    const gone = await user.goto(authorizeUrl(client.uid));
    expect(gone?.status()).toBe(401);
    expect(problems).toEqual([]);
  });
});
