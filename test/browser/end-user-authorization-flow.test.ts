import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { screenshot } from '../helpers/browser.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { oauth4webapiCodeRequest } from '../helpers/oauth4webapi.js';
import { chromiumPage, closeAll } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// A person in Chromium and a client using oauth4webapi: RFC 6749 section 4.1 with PKCE (RFC 7636) and the
// iss parameter (RFC 9207), then the person's list of authorized applications.

const insecure = { [oauth.allowInsecureRequests]: true };

describe('end user in Chromium: login, consent, code exchange with PKCE S256, authorized applications', () => {
  let server: TestServer & { baseUrl: string };
  let browser: Browser;
  let page: Page;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let accessToken: string;
  let callback: ClientCallback;
  let CALLBACK: string;

  beforeAll(async () => {
    server = await listeningTestServer({
      optionalScopes: ['write'],
      scopeDescriptions: { read: 'Read your data', write: 'Update your data' },
    });
    await createUser(server.deps, 'alice');
    callback = await clientCallbackServer();
    CALLBACK = callback.url;
    const application = (await createClient(server.deps, { name: 'Amazing Client App', confidential: false, redirectUri: CALLBACK }))
      .application;
    as = {
      issuer: server.baseUrl,
      authorization_endpoint: `${server.baseUrl}/oauth/authorize`,
      token_endpoint: `${server.baseUrl}/oauth/token`,
      authorization_response_iss_parameter_supported: true,
    };
    client = { client_id: application.uid };
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server, callback));

  const authorizationRequest = (scope: string) => oauth4webapiCodeRequest(as, client, CALLBACK, { scope });

  it('an anonymous person is sent to the login page, logs in, and sees the consent screen', async () => {
    const request = await authorizationRequest('read write');
    await page.goto(request.url);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.locator('h1').textContent()).toBe('Sign in');
    await screenshot(page, 'login');

    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('Invalid username or password.');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorize');
    expect(page.url()).toBe(request.url);
    expect(await page.locator('h1').textContent()).toBe('Authorization required');
    expect(await page.locator('p.prompt').textContent()).toBe('Authorize Amazing Client App to use your account?');
    expect(await page.locator('#oauth-permissions li').allTextContents()).toEqual(['Read your data', 'Update your data']);
    await screenshot(page, 'consent');
  });

  it('approves, and the client exchanges the code with PKCE S256 for a token (oauth4webapi)', async () => {
    const request = await authorizationRequest('read write');
    await page.goto(request.url);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(CALLBACK)), page.getByRole('button', { name: 'Authorize' }).click()]);

    // Checks state and iss (RFC 9207) and that there is no error.
    const parameters = oauth.validateAuthResponse(as, client, new URL(page.url()), request.state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      parameters,
      CALLBACK,
      request.codeVerifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('read write');
    expect(tokens.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    accessToken = tokens.access_token;
  });

  it('denies: the client gets access_denied with state and iss, and no code', async () => {
    const request = await authorizationRequest('read');
    await page.goto(request.url);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(CALLBACK)), page.getByRole('button', { name: 'Deny' }).click()]);
    const callback = new URL(page.url());
    expect(callback.searchParams.has('code')).toBe(false);
    expect(() => oauth.validateAuthResponse(as, client, callback, request.state)).toThrow(
      expect.objectContaining({
        error: 'access_denied',
        error_description: 'The resource owner or authorization server denied the request.',
      }),
    );
  });

  it('sees the application on the authorized applications page and revokes it', async () => {
    await page.goto(`${server.baseUrl}/oauth/authorized_applications`);
    expect(await page.locator('h1').textContent()).toBe('Your authorized applications');
    const row = page.locator('tbody tr', { hasText: 'Amazing Client App' });
    expect(await row.count()).toBe(1);
    expect(await row.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await screenshot(page, 'authorized-applications');

    await row.getByRole('button', { name: 'Revoke Amazing Client App' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toBe('Application revoked.');
    expect(await page.locator('tbody tr', { hasText: 'Amazing Client App' }).count()).toBe(0);
    expect((await server.deps.stores.accessTokens.findByToken(sha256Hex(accessToken)))?.revokedAt).not.toBeNull();
  });

  it('signs out', async () => {
    await page.goto(`${server.baseUrl}/oauth/authorized_applications`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    expect(await page.getByRole('status').textContent()).toBe('You have been signed out.');
  });
});
