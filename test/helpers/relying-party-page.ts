import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import type { ConfigInput } from '../../src/config/types.js';
import { launchBrowser } from './browser.js';
import { PASSWORD } from './end-user.js';
import { listeningTestServer } from './listening-server.js';
import type { TestServer } from './test-server.js';

// What a browser test of a relying party needs around its flow: the server and Chromium, openid-client's authorization
// request, the person signing in on the login form, and closing what beforeAll started (some of it, if it failed
// half-way).

export async function chromiumPage(): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchBrowser();
  return { browser, page: await (await browser.newContext()).newPage() };
}

/** A listening test server and Chromium, for tests that open a browser context of their own per person or device. */
export async function listeningServerAndChromium(
  config: ConfigInput & Record<string, unknown> = {},
): Promise<{ server: TestServer & { baseUrl: string }; browser: Browser }> {
  const server = await listeningTestServer(config);
  try {
    return { server, browser: await launchBrowser() };
  } catch (error) {
    // The caller's afterAll only gets what is returned: close what was opened before the failure.
    await server.close();
    throw error;
  }
}

/** Fills in and sends the login form; the page then goes wherever the sign-in sends it. */
export async function signInOnLoginPage(page: Page, username: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function closeAll(...started: Array<{ close(): Promise<unknown> } | undefined>): Promise<void> {
  for (const closable of started) await closable?.close();
}

/** An authorization request as openid-client 6 builds one: PKCE S256, state and nonce, and what checks the answer. */
export async function codeFlowRequest(config: client.Configuration, redirectUri: string, parameters: Record<string, string>) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const checks = { pkceCodeVerifier: codeVerifier, expectedState: client.randomState(), expectedNonce: client.randomNonce() };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
    ...parameters,
  });
  return { url, checks: { ...checks, idTokenExpected: true } };
}
