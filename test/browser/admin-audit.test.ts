import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdminBrowser, SCRIPT, type AdminBrowser } from '../helpers/admin-browser.js';
import { seriousViolations } from '../helpers/axe.js';
import { screenshot } from '../helpers/browser.js';
import { createClient } from '../helpers/factories.js';
import { createUser, PASSWORD, userAgent } from '../helpers/end-user.js';

// Issue 32 item 7: the admin's Audit page in Chromium. AUDIT_PAGE_SCREENSHOT=docs/images/audit-page.png writes the
// documentation's screenshot too (only when asked, so CI writes nothing into the repository).

describe('admin pages in Chromium: /oauth/audit', () => {
  let admin: AdminBrowser;
  beforeAll(async () => {
    admin = await openAdminBrowser();
  });
  afterAll(() => admin?.close());

  it('the admin opens Audit from the navigation, sees the events newest first (markup as text), and filters by type', async () => {
    const { server, page, problems, field, expectInert } = admin;
    await createClient(server.deps, { name: 'Billing dashboard' });
    await createUser(server.deps, 'dana', PASSWORD);
    await userAgent(server.app).post('/login', { username: 'dana', password: 'not her password' });
    await userAgent(server.app).post('/login', { username: 'dana', password: PASSWORD });
    await page.goto('/oauth/users/new');
    await field('Username').fill(SCRIPT);
    await field('Password').fill('a long password');
    await page.getByRole('button', { name: 'Submit' }).click();

    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await expect(page.locator('h1').innerText()).resolves.toBe('Audit');
    const types = await page.locator('tbody tr td:nth-child(2)').allInnerTexts();
    expect(types).toEqual(['user.created', 'user.sign_in.succeeded', 'user.sign_in.failed']);
    await expect(page.locator('tbody tr').first().innerText()).resolves.toContain(`username=${JSON.stringify(SCRIPT)}`);
    await expectInert();
    if (process.env.AUDIT_PAGE_SCREENSHOT) await page.screenshot({ path: process.env.AUDIT_PAGE_SCREENSHOT, fullPage: true });
    await screenshot(page, 'admin-audit-index');

    await field('Type').selectOption('user.sign_in.failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.locator('tbody tr td:nth-child(2)').allInnerTexts()).resolves.toEqual(['user.sign_in.failed']);
    await field('From').fill('yesterday');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.locator('#audit_errors').innerText()).resolves.toContain('From must be an ISO 8601');
    expect(problems).toEqual([]);
  });

  it('the page and its "Older events" page pass axe-core: the scrolling table is a named region the keyboard reaches', async () => {
    const { server, page, problems } = admin;
    await createUser(server.deps, 'erin', PASSWORD);
    await userAgent(server.app).post('/login', { username: 'erin', password: PASSWORD });
    await userAgent(server.app).post('/login', { username: 'erin', password: PASSWORD });

    await page.goto('/oauth/audit?limit=1');
    await expect(page.locator('table.audit-events tbody tr').count()).resolves.toBe(1);
    expect(await seriousViolations(page), 'the audit page').toEqual([]);
    const region = page.getByRole('region', { name: 'Audit events' });
    await expect(region.getAttribute('tabindex')).resolves.toBe('0');

    await page.getByRole('link', { name: 'Older events' }).click();
    await expect(page.locator('table.audit-events tbody tr').count()).resolves.toBe(1);
    expect(await seriousViolations(page), 'its "Older events" page').toEqual([]);
    // Tab goes from the filter's button to the table's box, and the arrow keys scroll it.
    await page.getByRole('button', { name: 'Filter' }).focus();
    await page.keyboard.press('Tab');
    await expect(region.evaluate((box) => box === (box.ownerDocument as { activeElement: unknown }).activeElement)).resolves.toBe(true);
    await expect(region.evaluate((box) => box.scrollWidth - box.clientWidth)).resolves.toBeGreaterThan(0);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => region.evaluate((box) => box.scrollLeft)).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
