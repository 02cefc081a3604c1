import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../helpers/browser.js';
import { DEVICE_FLOW_CONFIG, deviceClient } from '../helpers/device-flow.js';
import { PASSWORD } from '../helpers/end-user.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { chromiumPage, closeAll, signInOnLoginPage } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 34's acceptance for the device flow (RFC 8628): openid-client 6 starts a device authorization and polls
// while a person in headless Chromium opens the verification URI, signs in, checks the code and approves; a second
// run is denied, and the poll ends with access_denied. The interval is 1 s here so that the polls take no longer.

describe('openid-client 6 with Chromium: the device authorization grant (RFC 8628)', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;
  let page: Page;
  let config: client.Configuration;

  beforeAll(async () => {
    server = await listeningTestServer(
      { ...DEVICE_FLOW_CONFIG, openid: { enabled: true }, deviceAuthorization: { interval: 1 } },
      { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } },
    );
    await server.deps.stores.userAdmin.create({ username: 'alice', passwordHash: await server.deps.passwords.hash(PASSWORD) });
    const { uid } = await deviceClient(server.deps);
    config = await client.discovery(new URL(server.baseUrl), uid, undefined, client.None(), { execute: [client.allowInsecureRequests] });
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server));

  /** Starts a device authorization and its polling; the outcome settles once the person decides. */
  async function startOnDevice() {
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid read' });
    const outcome = client.pollDeviceAuthorizationGrant(config, started).then(
      (tokens) => ({ tokens, error: null }),
      (error: unknown) => ({ tokens: null, error: error as client.ResponseBodyError }),
    );
    return { started, outcome };
  }

  it('discovery offers the device authorization endpoint and the grant', () => {
    const metadata = config.serverMetadata();
    expect(metadata.device_authorization_endpoint).toBe(`${server.baseUrl}/oauth/device_authorization`);
    expect(metadata.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');
  });

  it('the person opens verification_uri_complete, signs in, checks the code and approves: the poll gets tokens and an ID token', async () => {
    const { started, outcome } = await startOnDevice();
    await page.goto(started.verification_uri_complete!);
    expect(new URL(page.url()).pathname).toBe('/login');
    await signInOnLoginPage(page, 'alice');
    await page.waitForURL((at) => at.pathname === '/device');
    expect(await page.getByLabel('Code').inputValue(), 'verification_uri_complete fills the code in').toBe(started.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Only continue if this code is shown on your device').waitFor();
    expect(await page.locator('#device-user-code').textContent()).toBe(started.user_code);
    await screenshot(page, 'openid-client-device-flow-consent');
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.getByText('Device connected').waitFor();

    const { tokens, error } = await outcome;
    expect(error).toBeNull();
    expect(tokens!.access_token).toEqual(expect.any(String));
    expect(tokens!.scope).toBe('openid read');
    expect(tokens!.claims()).toMatchObject({ iss: server.baseUrl, aud: config.clientMetadata().client_id });
    const userInfo = await client.fetchUserInfo(config, tokens!.access_token, tokens!.claims()!.sub);
    expect(userInfo.preferred_username ?? userInfo.sub).toEqual(expect.any(String));
  });

  it('a second run, denied at the verification URI: the poll ends with access_denied', async () => {
    const { started, outcome } = await startOnDevice();
    await page.goto(started.verification_uri);
    await page.getByLabel('Code').fill(started.user_code.toLowerCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Access denied').waitFor();

    const { tokens, error } = await outcome;
    expect(tokens).toBeNull();
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect(error!.error).toBe('access_denied');
  });
});
