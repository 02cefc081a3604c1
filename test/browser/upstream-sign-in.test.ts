import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { seriousViolations } from '../helpers/axe.js';
import { approveIfAsked, screenshot } from '../helpers/browser.js';
import { createClient } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { chromiumPage, closeAll, codeFlowRequest } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';
import { startUpstreamProvider, type UpstreamProvider } from '../helpers/upstream-provider.js';

// Issue 37 acceptance: a relying party (openid-client 6) asks this server for an ID token; Chromium, at our login
// page, picks the upstream identity provider (node-oidc-provider in its own process, its dev login and consent pages),
// signs in there, comes back, consents here, and the relying party's ID token names the local user linked to the
// upstream identity (our sub, never the upstream's) with amr fed.

describe('Chromium signs in through an upstream OpenID Provider for an openid-client relying party', () => {
  let upstream: UpstreamProvider;
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let browser: Browser;
  let page: Page;
  let config: client.Configuration;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstreamProvider({
      clients: [
        {
          client_id: 'oauth-service',
          client_secret: 'upstream-secret',
          redirect_uris: [`http://127.0.0.1:${port}/login/upstream/corp/callback`],
        },
      ],
      accounts: { 'erin-1': { email: 'erin@corp.example', email_verified: true, preferred_username: 'erin', name: 'Erin Upstream' } },
    });
    server = await listeningTestServer(
      {
        openid: { enabled: true },
        identityProviders: [
          { id: 'corp', name: 'Corp SSO', issuer: upstream.issuer, clientId: 'oauth-service' },
        ] as IdentityProviderConfig[],
      },
      { port, env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), IDP_CORP_CLIENT_SECRET: 'upstream-secret' } },
    );
    callback = await clientCallbackServer();
    const { application, plainSecret } = await createClient(server.deps, { name: 'Relying Party', redirectUri: callback.url });
    config = await client.discovery(new URL(server.baseUrl), application.uid, undefined, client.ClientSecretBasic(plainSecret!), {
      execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
    });
    ({ browser, page } = await chromiumPage());
  });
  afterAll(async () => {
    await closeAll(browser, server, callback);
    await upstream?.stop();
  });

  it('the ID token carries the linked user’s sub and amr fed', async () => {
    const { url, checks } = await codeFlowRequest(config, callback.url, { scope: 'openid profile email' });
    await page.goto(url.href);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await seriousViolations(page), 'the login page with a provider button').toEqual([]);
    await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await page.waitForURL((at) => at.href.startsWith(upstream.issuer));
    await page.locator('input[name="login"]').fill('erin-1');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    const landed = await approveIfAsked(page, callback.url, (consent) => screenshot(consent, 'upstream-sign-in-consent'));
    const tokens = await client.authorizationCodeGrant(config, landed, checks);
    const erin = (await server.deps.stores.users.findByUsername('erin'))!;
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(erin.subject);
    expect(claims.sub).not.toBe('erin-1');
    expect(claims.amr).toContain('fed');
    expect(claims.acr).toBe(server.config.authentication.acr.pwd);
    const userInfo = await client.fetchUserInfo(config, tokens.access_token, erin.subject);
    expect(userInfo).toMatchObject({ name: 'Erin Upstream', email: 'erin@corp.example', email_verified: true });
  });

  it('the failure page names the provider, offers the ways on, and passes axe-core', async () => {
    const response = await page.goto(`${server.baseUrl}/login/upstream/corp/callback?code=stolen&state=forged`);
    expect(response?.status()).toBe(400);
    await expect(page.getByRole('heading', { name: 'Sign-in with Corp SSO failed' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Sign in another way' }).isVisible()).resolves.toBe(true);
    expect(await seriousViolations(page), 'the upstream failure page').toEqual([]);
    await screenshot(page, 'upstream-failure');
  });
});
