import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTRIBUTE, openAdminBrowser, SCRIPT, type AdminBrowser } from '../helpers/admin-browser.js';
import { screenshot } from '../helpers/browser.js';

const USER_PASSWORD = 'user password in the browser';

// Every free-text claim gets one of the payloads; the claims with a format get valid values (their payloads are
// refused, and the form that refuses them must show them as text too: the second test).
const FREE_TEXT: Record<string, string> = {
  Name: SCRIPT,
  'Given name': ATTRIBUTE,
  'Family name': SCRIPT,
  'Middle name': ATTRIBUTE,
  Nickname: SCRIPT,
  'Preferred username': ATTRIBUTE,
  Gender: SCRIPT,
  'Phone number': SCRIPT,
  'Formatted address': ATTRIBUTE,
  'Street address': SCRIPT,
  Locality: ATTRIBUTE,
  Region: SCRIPT,
  'Postal code': ATTRIBUTE,
  Country: SCRIPT,
};

describe('admin pages in Chromium: /oauth/users', () => {
  let admin: AdminBrowser;
  beforeAll(async () => {
    admin = await openAdminBrowser();
  });
  afterAll(() => admin?.close());

  it('an admin creates a user whose every text claim is markup: shown as text, never run; then edits and disables', async () => {
    const { page, problems, field, expectInert } = admin;
    await page.goto('/oauth/applications');
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await expect(page.locator('h1').innerText()).resolves.toBe('Users');
    await page.getByRole('link', { name: 'New user' }).click();

    await field('Username').fill('alice');
    await field('Password').fill(USER_PASSWORD);
    for (const [label, value] of Object.entries(FREE_TEXT)) await field(label).fill(value);
    await field('Email').fill('alice@example.com');
    await field('Email verified').check();
    await field('Website').fill('https://alice.example.com/');
    await field('Birthdate').fill('0000-05-04');
    await field('Zoneinfo').fill('Europe/London');
    await field('Locale').fill('en-GB');
    await screenshot(page, 'admin-users-new');
    await page.getByRole('button', { name: 'Submit' }).click();

    await expect(page.locator('.notice').innerText()).resolves.toBe('User created.');
    await expect(page.locator('h1').innerText()).resolves.toBe('User: alice');
    await expect(page.locator('#claim_name').innerText()).resolves.toBe(SCRIPT);
    await expect(page.locator('#claim_given_name').innerText()).resolves.toBe(ATTRIBUTE);
    await expect(page.locator('#claim_address_locality').innerText()).resolves.toBe(ATTRIBUTE);
    await expect(page.locator('#claim_email_verified').innerText()).resolves.toBe('Yes');
    await expect(page.locator('#user_subject').innerText()).resolves.toMatch(/^[0-9a-f-]{36}$/);
    await expectInert();
    await screenshot(page, 'admin-users-show');

    await page.getByRole('link', { name: 'Edit claims' }).click();
    for (const [label, value] of Object.entries(FREE_TEXT)) {
      await expect(field(label).inputValue(), label).resolves.toBe(value);
    }
    await expectInert();
    await field('Name').fill('Alice Liddell');
    await field('Nickname').fill('');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toBe('User updated.');
    await expect(page.locator('#claim_name').innerText()).resolves.toBe('Alice Liddell');
    await expect(page.locator('#claim_nickname').count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Users', exact: true }).click();
    const row = page.locator('tr', { hasText: 'alice' });
    await expect(row.locator('td').nth(1).innerText()).resolves.toBe('Alice Liddell');
    await expectInert();
    await screenshot(page, 'admin-users-index');

    await expect(signIn('alice', USER_PASSWORD)).resolves.toBe(true);
    await row.getByRole('link', { name: 'alice' }).click();
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect(page.locator('.notice').innerText()).resolves.toContain('User disabled;');
    await expect(page.locator('#user_state').innerText()).resolves.toContain('Disabled since');
    await screenshot(page, 'admin-users-disabled');
    await expect(signIn('alice', USER_PASSWORD)).resolves.toBe(false);

    await page.getByRole('button', { name: 'Enable' }).click();
    await expect(page.locator('#user_state').innerText()).resolves.toBe('Active');
    await expect(signIn('alice', USER_PASSWORD)).resolves.toBe(true);
    expect(problems).toEqual([]);
  });

  it('refused claims are shown back as text beside their messages, and the password is not', async () => {
    const { page, problems, field, expectInert } = admin;
    await page.goto('/oauth/users/new');
    await field('Username').fill(SCRIPT);
    await field('Password').fill(USER_PASSWORD);
    for (const label of ['Email', 'Profile', 'Picture', 'Website', 'Birthdate', 'Zoneinfo', 'Locale']) {
      await field(label).fill(ATTRIBUTE);
    }
    await page.getByRole('button', { name: 'Submit' }).click();

    await expect(page.getByRole('alert').first().innerText()).resolves.toContain('Whoops! Check your form for possible errors');
    await expect(page.locator('#user_email_errors').innerText()).resolves.toBe('Must be an email address, such as alice@example.com');
    await expect(page.locator('#user_picture_errors').innerText()).resolves.toContain('Must not contain spaces, quotes');
    await expect(page.locator('#user_locale_errors').innerText()).resolves.toContain('Must be a BCP47 language tag');
    await expect(field('Username').inputValue()).resolves.toBe(SCRIPT);
    await expect(field('Zoneinfo').inputValue()).resolves.toBe(ATTRIBUTE);
    await expect(field('Password').inputValue()).resolves.toBe('');
    await expectInert();
    await screenshot(page, 'admin-users-errors');
    expect(problems).toEqual([]);
  });

  /** A login at /login in a browser of its own (no admin credentials): true when it gets past the form. */
  async function signIn(username: string, password: string): Promise<boolean> {
    const visitor = await admin.browser.newContext({ baseURL: admin.baseURL });
    try {
      const login = await visitor.newPage();
      await login.goto('/login');
      await login.getByLabel('Username').fill(username);
      await login.getByLabel('Password').fill(password);
      await login.getByRole('button', { name: 'Sign in' }).click();
      await login.waitForLoadState();
      return !new URL(login.url()).pathname.startsWith('/login');
    } finally {
      await visitor.close();
    }
  }
});
