import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { createResource } from '../../src/oauth/resources/resources.js';
import { screenshot } from '../helpers/browser.js';
import { createClient, createUser } from '../helpers/end-user.js';
import { clientCallbackServer, type ClientCallback } from '../helpers/listening-server.js';
import { closeAll, listeningServerAndChromium, signInOnLoginPage } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 36 item 4's acceptance: the consent page shows two authorization_details types (RFC 9396 section 4) in
// Chromium, one in the words of its resource's text, one as its fields, passing axe-core; the screenshot is the
// README's (docs/screenshots/, rewritten with UPDATE_SCREENSHOTS=1, as end-user-pages-accessibility.test.ts does).

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DOCS_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';
const PAYMENT = {
  type: 'payment_initiation',
  instructedAmount: { currency: 'EUR', amount: '123.50' },
  creditorName: 'Merchant A',
};
const ACCOUNTS = { type: 'account_information', actions: ['list_accounts', 'read_balances'], locations: ['https://bank.example.com/api'] };

describe('consent in Chromium for rich authorization requests (RFC 9396)', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;
  let page: Page;
  let callback: ClientCallback;
  let clientId: string;

  beforeAll(async () => {
    ({ server, browser } = await listeningServerAndChromium());
    callback = await clientCallbackServer();
    await createResource(server.deps, {
      uri: 'https://bank.example.com/api',
      name: 'Bank',
      scopes: 'read',
      tokenFormat: '',
      accessTokenLifetime: '',
      serverClientId: '',
      authorizationDetailsTypes: JSON.stringify({
        payment_initiation: { schema: null, consent: 'Pay {{instructedAmount.amount}} {{instructedAmount.currency}} to {{creditorName}}' },
        account_information: { schema: null, consent: null },
      }),
    });
    clientId = (await createClient(server.deps, { name: 'Budget Planner', redirectUri: callback.url })).application.uid;
    await createUser(server.deps, 'alice');
    page = await (await browser.newContext({ viewport: { width: 900, height: 700 } })).newPage();
  });
  afterAll(() => closeAll(browser, server, callback));

  it('shows both types in words, passes axe-core, and the approval returns a code', async () => {
    const url = new URL('/oauth/authorize', server.baseUrl);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback.url,
      response_type: 'code',
      scope: 'read',
      code_challenge: s256Challenge('a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789'),
      code_challenge_method: 'S256',
      authorization_details: JSON.stringify([PAYMENT, ACCOUNTS]),
    }).toString();
    await page.goto(url.href);
    await signInOnLoginPage(page, 'alice');
    await expect(page.locator('h1').innerText()).resolves.toBe('Authorization required');

    const details = page.locator('#oauth-authorization-details li.authorization-detail');
    await expect(details.count()).resolves.toBe(2);
    await expect(details.nth(0).innerText()).resolves.toBe('Pay 123.50 EUR to Merchant A');
    await expect(details.nth(0).isVisible()).resolves.toBe(true);
    const fallback = await details.nth(1).innerText();
    expect(fallback).toContain('account_information');
    expect(fallback).toContain('list_accounts, read_balances');
    await expect(details.nth(1).isVisible()).resolves.toBe(true);

    await page.evaluate(AXE_SOURCE);
    const violations = (await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string | null }> }> } }).axe;
      return (await axe.run()).violations;
    })) as Array<{ id: string; impact: string | null }>;
    expect(violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')).toEqual([]);

    if (DOCS_SCREENSHOTS)
      await page.screenshot({
        path: join(import.meta.dirname, '../../docs/screenshots/consent-authorization-details.png'),
        fullPage: true,
      });
    else await screenshot(page, 'consent-authorization-details');

    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL((next) => next.href.startsWith(callback.url));
    expect(new URL(page.url()).searchParams.get('code')).toMatch(/.+/);
  });
});
