import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import { approveIfAsked, cspViolations, launchBrowser, screenshot, virtualAuthenticator } from '../helpers/browser.js';
import { RECENT_SIGN_IN_SECONDS } from '../../src/oauth/passkeys/passkeys.js';
import { setMfaPolicy } from '../../src/oauth/second-factor/second-factors.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, type ClientCallback } from '../helpers/listening-server.js';
import { closeAll, codeFlowRequest } from '../helpers/relying-party-page.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 35 item 1 acceptance: Chromium with a CDP virtual authenticator (a platform authenticator with resident keys
// and user verification) registers a passkey on /account, signs out, signs in with it alone, and an openid-client
// code flow gets an ID token with amr hwk and the phishing-resistant acr. Browsers refuse an IP address as an rp id,
// so the server's baseUrl is http://localhost (a secure context, as loopback is).

const PHR = 'urn:oauth-service:acr:phr';

describe('passkeys in Chromium with a virtual authenticator, and an openid-client code flow', () => {
  let server: TestServer;
  let baseUrl: string;
  let callback: ClientCallback;
  let browser: Browser;
  let config: client.Configuration;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    server = await buildTestServer({
      config: { baseUrl, openid: { enabled: true } },
      env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    });
    await server.app.listen({ port, host: 'localhost' });
    callback = await clientCallbackServer();
    const { application, plainSecret } = await createClient(server.deps, { name: 'Relying Party', redirectUri: callback.url });
    config = await client.discovery(new URL(baseUrl), application.uid, undefined, client.ClientSecretBasic(plainSecret!), {
      execute: [client.allowInsecureRequests],
    });
    browser = await launchBrowser();
  });
  afterAll(() => closeAll(browser, server, callback));

  /**
   * A browser profile with its own virtual platform authenticator (CTAP2, resident keys, user verification passes).
   * Without `autofill` the browser says it has no conditional mediation, so only the button starts a passkey sign-in.
   */
  async function deviceWithAuthenticator(
    autofill: boolean,
  ): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string; cspErrors: string[] }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    if (!autofill) {
      await page.addInitScript(() => {
        // Runs in the page (tsconfig has no DOM types).
        const page = globalThis as unknown as { PublicKeyCredential: { isConditionalMediationAvailable: () => Promise<boolean> } };
        page.PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
      });
    }
    const cspErrors = cspViolations(page);
    return { context, page, cspErrors, ...(await virtualAuthenticator(context, page)) };
  }

  /** Moves the authenticator's credentials (private keys and counters) to a new one that cannot verify the user. */
  async function moveToAuthenticatorWithoutUserVerification(cdp: CDPSession, authenticatorId: string) {
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    const options = {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: false,
      isUserVerified: false,
      automaticPresenceSimulation: true,
    } as const;
    const key = await cdp.send('WebAuthn.addVirtualAuthenticator', { options });
    for (const credential of credentials) await cdp.send('WebAuthn.addCredential', { authenticatorId: key.authenticatorId, credential });
  }

  async function registerPasskey(page: Page, username: string, name: string) {
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    await page.goto(`${baseUrl}/account`);
    await page.getByLabel('Name of the new passkey').fill(name);
    // The proof that it is the user (a recent sign-in would do too: the password is what most users have).
    await page.getByLabel('Your password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('.notice').waitFor();
    expect(await page.locator('.notice').textContent()).toBe(`The passkey ${name} has been added.`);
    expect(await page.locator('#passkeys tbody tr').count()).toBe(1);
    await screenshot(page, `account-passkeys-${username}`);
    // Signing out ends on /login, where a browser with conditional mediation at once offers the passkey just made.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  }

  /**
   * From the client's authorization request through consent to the tokens. `signIn`: what the user does on /login
   * (none: the browser is signed in with a passkey already, the login page's autofill did it).
   */
  async function codeFlowWithPasskey(page: Page, signIn?: (login: Page) => Promise<void>) {
    const { url, checks } = await codeFlowRequest(config, callback.url, { scope: 'openid' });
    await page.goto(url.href);
    if (signIn) {
      expect(new URL(page.url()).pathname).toBe('/login');
      await signIn(page);
    }
    const tokens = await client.authorizationCodeGrant(config, await approveIfAsked(page, callback.url), checks);
    return tokens.claims()!;
  }

  it('registers a passkey on /account, signs out, signs in with it alone (autofill): amr hwk and the phr acr in the ID token', async () => {
    const alice = await createUser(server.deps, 'alice');
    const device = await deviceWithAuthenticator(true);
    await registerPasskey(device.page, 'alice', 'Chromium');
    // The login page's conditional request, answered by the authenticator: signed in again with the passkey alone.
    await device.page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    expect(await device.page.locator('.signed-in strong, strong').first().textContent()).toBe('alice');
    const sessions = await server.deps.stores.loginSessions.listOfUser(alice.id, new Date(0));
    expect(sessions.map((session) => session.amr)).toEqual([['hwk', 'mfa']]);
    const claims = await codeFlowWithPasskey(device.page);
    expect(claims.sub).toBe(alice.subject);
    expect(claims.amr).toEqual(expect.arrayContaining([expect.stringMatching(/^(hwk|swk)$/)]));
    expect(claims.acr).toBe(PHR);
    const [passkey] = await server.deps.stores.passkeys.listOfUser(alice.id);
    expect(passkey!.lastUsedAt).toBeInstanceOf(Date);
    expect(device.cspErrors).toEqual([]);
    await device.context.close();
  });

  it("another user's authenticator (the button) signs in as that user, never as the first", async () => {
    const bob = await createUser(server.deps, 'bob');
    const device = await deviceWithAuthenticator(false);
    await registerPasskey(device.page, 'bob', 'Bob’s laptop');
    await device.page.waitForURL((url) => url.pathname === '/login');
    await device.page.getByRole('button', { name: 'Use a passkey' }).waitFor();
    await screenshot(device.page, 'login-with-passkey');
    const claims = await codeFlowWithPasskey(device.page, (login) => login.getByRole('button', { name: 'Use a passkey' }).click());
    expect(claims.sub).toBe(bob.subject);
    const alice = await server.deps.stores.users.findByUsername('alice');
    expect(claims.sub).not.toBe(alice!.subject);
    await device.context.close();
  });

  it('a browser left signed in: the account page adds a passkey only with the password, and says so in the page', async () => {
    const erin = await createUser(server.deps, 'erin');
    const device = await deviceWithAuthenticator(false);
    const { page } = device;
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel('Username').fill('erin');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorized_applications');
    server.clock.advance(RECENT_SIGN_IN_SECONDS + 1);
    await page.goto(`${baseUrl}/account`);
    const message = page.locator('#passkey_register_error');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await message.waitFor({ state: 'visible' });
    expect(await message.textContent()).toContain('Enter your password to add a passkey.');
    await page.getByLabel('Your password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Your current password is not correct.').waitFor();
    expect(await page.getByLabel('Your password', { exact: true }).inputValue()).toBe('');
    expect(await server.deps.stores.passkeys.listOfUser(erin.id)).toEqual([]);
    await page.getByLabel('Your password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('.notice').waitFor();
    expect(await page.locator('.notice').textContent()).toBe('The passkey My passkey has been added.');
    expect(await server.deps.stores.passkeys.listOfUser(erin.id)).toHaveLength(1);
    expect(device.cspErrors).toEqual([]);
    await device.context.close();
  });

  it('a password, then a passkey without user verification at /login/second-factor: amr pwd and hwk, the phr acr', async () => {
    const dana = await createUser(server.deps, 'dana');
    const device = await deviceWithAuthenticator(false);
    await registerPasskey(device.page, 'dana', 'Security key');
    await device.page.waitForURL((url) => url.pathname === '/login');
    await setMfaPolicy(server.deps, dana, 'required');
    // From now on the passkey is on an authenticator that proves presence only (a security key without a PIN): enough
    // after a password. (One that has user verification but fails it refuses the ceremony, as a wrong PIN would.)
    await moveToAuthenticatorWithoutUserVerification(device.cdp, device.authenticatorId);
    const claims = await codeFlowWithPasskey(device.page, async (login) => {
      await login.getByLabel('Username').fill('dana');
      await login.getByLabel('Password').fill(PASSWORD);
      await login.getByRole('button', { name: 'Sign in', exact: true }).click();
      await login.waitForURL((url) => url.pathname === '/login/second-factor');
      await screenshot(login, 'second-factor-passkey');
      await login.getByRole('button', { name: 'Use a passkey' }).click();
    });
    expect(claims.sub).toBe(dana.subject);
    expect(claims.amr).toEqual(['pwd', 'hwk']);
    expect(claims.acr).toBe(PHR);
    expect(device.cspErrors).toEqual([]);
    await device.context.close();
  });
});
