import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../helpers/browser.js';
import { createClient, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { chromiumPage, closeAll, codeFlowRequest, signInOnLoginPage } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';
import type { UserRecord } from '../../src/oauth/store.js';

// OpenID Connect Core 1.0 section 8.1 as relying parties written with openid-client 6 meet it, a person in Chromium:
// a pairwise client sees a sub of its own for the user, stable across sign-ins and refreshes and the same at
// UserInfo and introspection, where a public client sees the user's own subject and a pairwise client of another
// sector (another sector_identifier_uri host) yet another. The relying parties' callback is on loopback, every native
// app's host and so no sector (Core 8.1): each pairwise one is stored with the sector_identifier_uri a registration
// would have checked.

const SALT = 'pairwise-salt-for-the-browser-relying-party-01';

interface RelyingParty {
  config: client.Configuration;
  redirectUri: string;
}

describe('openid-client 6 with Chromium: pairwise subject identifiers (OpenID Connect Core 1.0 section 8.1)', () => {
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let browser: Browser;
  let page: Page;
  let user: UserRecord;

  beforeAll(async () => {
    server = await listeningTestServer(
      {
        openid: { enabled: true, pairwiseSalt: SALT },
        grantFlows: ['authorization_code', 'refresh_token'],
        forceSslInRedirectUri: false,
      },
      { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } },
    );
    user = await server.deps.stores.userAdmin.create({ username: 'alice', passwordHash: await server.deps.passwords.hash(PASSWORD) });
    callback = await clientCallbackServer();
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server, callback));

  /** A client (pairwise: of the sector `sector`), and openid-client configured for it by discovery. */
  async function relyingParty(name: string, subjectType: 'public' | 'pairwise', sector = 'notes.example'): Promise<RelyingParty> {
    const redirectUri = callback.url;
    const { application, plainSecret } = await createClient(server.deps, { name, redirectUri });
    if (subjectType === 'pairwise')
      await server.deps.stores.applicationAdmin.update(application.id, {
        subjectType,
        sectorIdentifierUri: `https://${sector}/redirect-uris.json`,
      });
    const config = await client.discovery(new URL(server.baseUrl), application.uid, undefined, client.ClientSecretBasic(plainSecret!), {
      // Loopback http; and the ID token's signature checked by the JWKS (Core 3.1.3.7 item 6).
      execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
    });
    return { config, redirectUri };
  }

  /** The code flow through Chromium, signing in and approving when asked; the tokens openid-client checked. */
  async function signIn({ config, redirectUri }: RelyingParty) {
    const { url, checks } = await codeFlowRequest(config, redirectUri, { scope: 'openid' });
    await page.goto(url.href);
    if (new URL(page.url()).pathname === '/login') {
      await signInOnLoginPage(page, 'alice');
      await page.waitForURL((at) => at.pathname === '/oauth/authorize' || at.href.startsWith(redirectUri));
    }
    if (!page.url().startsWith(redirectUri)) {
      await Promise.all([
        page.waitForURL((at) => at.href.startsWith(redirectUri)),
        page.getByRole('button', { name: 'Authorize' }).click(),
      ]);
    }
    return client.authorizationCodeGrant(config, new URL(page.url()), checks);
  }

  it('discovery lists subject_types_supported public and pairwise', async () => {
    const { config } = await relyingParty('Discovery', 'public');
    expect(config.serverMetadata().subject_types_supported).toEqual(['public', 'pairwise']);
  });

  it("a pairwise client's sub differs from the public client's, stays the same at the next sign-in, at refresh, UserInfo and introspection", async () => {
    const publicSub = (await signIn(await relyingParty('Public Notes', 'public'))).claims()!.sub;
    expect(publicSub).toBe(user.subject);

    const pairwise = await relyingParty('Pairwise Notes', 'pairwise');
    const tokens = await signIn(pairwise);
    await screenshot(page, 'openid-client-pairwise-callback');
    const pairwiseSub = tokens.claims()!.sub;
    expect(pairwiseSub).not.toBe(publicSub);

    // fetchUserInfo refuses a UserInfo response whose sub is not the one expected (Core 5.3.4).
    expect((await client.fetchUserInfo(pairwise.config, tokens.access_token, pairwiseSub)).sub).toBe(pairwiseSub);
    expect(await client.tokenIntrospection(pairwise.config, tokens.access_token)).toMatchObject({ active: true, sub: pairwiseSub });
    const refreshed = await client.refreshTokenGrant(pairwise.config, tokens.refresh_token!);
    expect(refreshed.claims()!.sub).toBe(pairwiseSub);

    // A new browser session: the person signs in again, and the relying party recognises them by the same sub.
    await browser.close();
    ({ browser, page } = await chromiumPage());
    expect((await signIn(pairwise)).claims()!.sub).toBe(pairwiseSub);
  });

  it('a pairwise client of another sector (sector_identifier_uri host) sees yet another sub', async () => {
    const here = (await signIn(await relyingParty('Same Sector', 'pairwise'))).claims()!.sub;
    const elsewhere = await relyingParty('Other Sector', 'pairwise', 'other-notes.example');
    const there = (await signIn(elsewhere)).claims()!.sub;
    expect(there).not.toBe(here);
    expect(there).not.toBe(user.subject);
  });
});
