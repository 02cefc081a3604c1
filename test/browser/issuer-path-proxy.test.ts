import { createServer, request as forward, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import { cspViolations, launchBrowser, virtualAuthenticator } from '../helpers/browser.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, type ClientCallback } from '../helpers/listening-server.js';
import { closeAll, signInOnLoginPage } from '../helpers/relying-party-page.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// SPEC 3.7 in Chromium: the issuer is http://localhost:<proxy>/tenant, and a proxy strips /tenant before forwarding
// to the service (anything outside /tenant/ is a 404 there, as at a real proxy with other tenants). The browser signs
// in, approves consent, registers a passkey on the account page (passkeys.js's requests) and signs in with it: every
// page, form, script and redirect must stay under /tenant/.

const BASE = '/tenant';

/** The stripping proxy: /tenant/x reaches the service as /x; anything else is answered 404 by the proxy itself. */
function strippingProxy(servicePort: number): Server {
  return createServer((incoming, outgoing) => {
    const url = incoming.url ?? '/';
    if (!url.startsWith(`${BASE}/`)) return void outgoing.writeHead(404, { 'content-type': 'text/plain' }).end('not this tenant');
    const upstream = forward(
      { host: 'localhost', port: servicePort, method: incoming.method, path: url.slice(BASE.length), headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(upstream);
  });
}

describe('an issuer with a path behind a proxy that strips it, in Chromium: sign-in, consent and passkeys stay under /tenant/', () => {
  let server: TestServer;
  let proxy: Server;
  let issuer: string;
  let callback: ClientCallback;
  let browser: Browser;
  let clientId: string;

  beforeAll(async () => {
    const [servicePort, proxyPort] = [await freePort(), await freePort()];
    issuer = `http://localhost:${proxyPort}${BASE}`;
    server = await buildTestServer({ config: { baseUrl: issuer } });
    await server.app.listen({ port: servicePort, host: 'localhost' });
    proxy = strippingProxy(servicePort);
    await new Promise<void>((resolve) => proxy.listen(proxyPort, 'localhost', resolve));
    callback = await clientCallbackServer();
    clientId = (await createClient(server.deps, { name: 'Tenant App', redirectUri: callback.url })).application.uid;
    browser = await launchBrowser();
  });
  afterAll(() => closeAll(browser, callback, { close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) }, server));

  it('signs in and approves: the code reaches the client; then a passkey is added on /tenant/account and signs in alone', async () => {
    const alice = await createUser(server.deps, 'alice');
    const context = await browser.newContext();
    const page = await context.newPage();
    const cspErrors = cspViolations(page);
    const { authenticatorId, cdp } = await virtualAuthenticator(context, page);
    const notFound: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 404) notFound.push(response.url());
    });

    const authorize = `${issuer}/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: callback.url, response_type: 'code', state: 's' })}`;
    await page.goto(authorize);
    expect(new URL(page.url()).pathname).toBe(`${BASE}/login`);
    await signInOnLoginPage(page, 'alice');
    // The consent page is /tenant/oauth/authorize (approveIfAsked knows the root issuer's /oauth/authorize only).
    await page.waitForURL((at) => at.pathname === `${BASE}/oauth/authorize`);
    await Promise.all([page.waitForURL((at) => at.href.startsWith(callback.url)), page.getByRole('button', { name: 'Authorize' }).click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('code')).toMatch(/.+/);
    expect(landed.searchParams.get('state')).toBe('s');

    await page.goto(`${issuer}/account`);
    await page.getByLabel('Name of the new passkey').fill('Tenant key');
    await page.getByLabel('Your password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('.notice').waitFor();
    expect(new URL(page.url()).pathname).toBe(`${BASE}/account`);
    expect(await server.deps.stores.passkeys.listOfUser(alice.id)).toHaveLength(1);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    // Back on /tenant/login, the page's conditional request (autofill) signs in with the passkey alone.
    await page.waitForURL((at) => at.pathname === `${BASE}/oauth/authorized_applications`);
    expect(await page.locator('.signed-in strong').first().textContent()).toBe('alice');

    expect(notFound).toEqual([]);
    expect(cspErrors).toEqual([]);
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    await context.close();
  });
});
