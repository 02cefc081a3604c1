import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../helpers/browser.js';
import { createClient, PASSWORD } from '../helpers/end-user.js';
import { chromiumPage, closeAll, codeFlowRequest, signInOnLoginPage } from '../helpers/relying-party-page.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import type { TestServer } from '../helpers/test-server.js';

// OpenID Connect Core 1.0 section 11 as a relying party written with openid-client 6 meets it, a person in Chromium:
// discovery offers offline_access; asked with prompt=consent, the consent page says what it means, and the refresh
// token that comes back works; a client whose refresh tokens need offline_access gets none when it does not ask.

describe('openid-client 6 with Chromium: offline_access (OpenID Connect Core 1.0 section 11)', () => {
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let browser: Browser;
  let page: Page;
  let config: client.Configuration;

  beforeAll(async () => {
    server = await listeningTestServer(
      { openid: { enabled: true }, grantFlows: ['authorization_code', 'refresh_token'] },
      { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } },
    );
    await server.deps.stores.userAdmin.create({ username: 'alice', passwordHash: await server.deps.passwords.hash(PASSWORD) });
    callback = await clientCallbackServer();
    const { application, plainSecret } = await createClient(server.deps, {
      name: 'Offline Notes',
      redirectUri: callback.url,
      refreshTokens: 'offline_access',
    });
    config = await client.discovery(new URL(server.baseUrl), application.uid, undefined, client.ClientSecretBasic(plainSecret!), {
      execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
    });
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server, callback));

  /** The code flow through Chromium: sign in when asked, approve the consent page (handed to `onConsent` first). */
  async function codeFlow(scope: string, extra: Record<string, string>, onConsent: (page: Page) => Promise<void>) {
    const { url, checks } = await codeFlowRequest(config, callback.url, { scope, ...extra });
    await page.goto(url.href);
    if (new URL(page.url()).pathname === '/login') {
      await signInOnLoginPage(page, 'alice');
      await page.waitForURL((at) => at.pathname === '/oauth/authorize' || at.href.startsWith(callback.url));
    }
    expect(new URL(page.url()).pathname, 'the consent page is shown').toBe('/oauth/authorize');
    await onConsent(page);
    await Promise.all([page.waitForURL((at) => at.href.startsWith(callback.url)), page.getByRole('button', { name: 'Authorize' }).click()]);
    return client.authorizationCodeGrant(config, new URL(page.url()), checks);
  }

  it('discovery lists offline_access in scopes_supported', () => {
    expect(config.serverMetadata().scopes_supported).toEqual(expect.arrayContaining(['openid', 'offline_access']));
  });

  it('scope "openid offline_access" with prompt=consent: the consent page says "Stay signed in", and refreshTokenGrant works with the refresh token', async () => {
    const tokens = await codeFlow('openid offline_access', { prompt: 'consent' }, async (consent) => {
      expect(await consent.getByText('Stay signed in to Offline Notes when you are away').isVisible()).toBe(true);
      await screenshot(consent, 'openid-client-offline-access-consent');
    });
    expect(tokens.scope).toBe('openid offline_access');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.claims()!.sub).toBe(tokens.claims()!.sub);
    const userInfo = await client.fetchUserInfo(config, refreshed.access_token, tokens.claims()!.sub);
    expect(userInfo.sub).toBe(tokens.claims()!.sub);
  });

  it('the same client (refreshTokens offline_access) asking for "openid" only gets no refresh token', async () => {
    const tokens = await codeFlow('openid', {}, async (consent) => {
      expect(await consent.getByText('Stay signed in').count()).toBe(0);
    });
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toBeUndefined();
  });
});
