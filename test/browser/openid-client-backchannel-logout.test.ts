import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet } from 'jose';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backchannelReceiver, validLogoutToken, type BackchannelReceiver } from '../helpers/backchannel-receiver.js';
import { screenshot } from '../helpers/browser.js';
import { createClient, createUser } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { chromiumPage, closeAll, codeFlowRequest, signInOnLoginPage } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// OpenID Connect Back-Channel Logout 1.0 end to end: a relying party written with openid-client 6 signs a person in
// through Chromium (the code flow with PKCE), the person signs out at the OpenID Provider's own page, and the relying
// party's back-channel endpoint, a real HTTP server, receives a logout token it verifies with jose against the
// provider's JWKS (section 2.6) naming the session of the ID token it holds.

describe('openid-client 6 relying party with Chromium: back-channel logout after signing out at the provider', () => {
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let receiver: BackchannelReceiver;
  let browser: Browser;
  let page: Page;
  let config: client.Configuration;

  beforeAll(async () => {
    server = await listeningTestServer({ openid: { enabled: true } }, { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
    await createUser(server.deps, 'alice');
    callback = await clientCallbackServer();
    receiver = await backchannelReceiver();
    const { application, plainSecret } = await createClient(server.deps, {
      name: 'Relying Party',
      redirectUri: callback.url,
      backchannelLogoutUri: receiver.url,
    });
    config = await client.discovery(new URL(server.baseUrl), application.uid, undefined, client.ClientSecretBasic(plainSecret!), {
      execute: [client.allowInsecureRequests],
    });
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server, callback, receiver));

  it('discovers backchannel_logout_supported and backchannel_logout_session_supported (section 2.1)', () => {
    expect(config.serverMetadata()).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
  });

  it('signs in at the relying party, signs out at the provider, and the back-channel endpoint receives a valid logout token for that session', async () => {
    const { url, checks } = await codeFlowRequest(config, callback.url, { scope: 'openid profile' });
    await page.goto(url.href);
    await signInOnLoginPage(page, 'alice');
    // The consent page, then back at the relying party's callback.
    await page.waitForURL((at) => at.pathname === '/oauth/authorize');
    await Promise.all([page.waitForURL((at) => at.href.startsWith(callback.url)), page.getByRole('button', { name: 'Authorize' }).click()]);
    const idToken = (await client.authorizationCodeGrant(config, new URL(page.url()), checks)).claims()!;
    expect(idToken.sid).toEqual(expect.any(String));

    // The person signs out at the provider's own page, not through the relying party.
    await page.goto(`${server.baseUrl}/logout`);
    await screenshot(page, 'backchannel-logout-sign-out-page');
    await Promise.all([page.waitForURL((at) => at.pathname === '/login'), page.getByRole('button', { name: 'Sign out' }).click()]);
    expect(await page.textContent('body')).toContain('You have been signed out.');

    const request = await receiver.next();
    expect(request.contentType).toBe('application/x-www-form-urlencoded');
    const claims = await validLogoutToken(request.logoutToken!, {
      keys: createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!)),
      issuer: config.serverMetadata().issuer,
      clientId: config.clientMetadata().client_id,
    });
    expect(claims).toMatchObject({ sub: idToken.sub, sid: idToken.sid, aud: config.clientMetadata().client_id });
  });
});
