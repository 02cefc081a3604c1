import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, publicCodeFlow, signedIn } from '../helpers/end-user.js';
import { clientCallbackServer, type ClientCallback } from '../helpers/listening-server.js';
import { listeningOpenIdServer } from '../helpers/openid.js';
import { chromiumPage, closeAll } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// A browser-based application (a single-page app's public client) on an origin of its own calls the token, UserInfo
// and revocation endpoints with fetch, as oidc-client-ts or oauth4webapi in a page do: Chromium lets it read the
// answers only when they name its origin (CORS), which config cors.allowedOrigins decides; discovery and the JWKS are
// readable from any origin.

interface Answer {
  status?: number;
  body?: unknown;
  failed?: string;
}

describe('CORS in Chromium: a single-page app on another origin calls the endpoints and reads the answers', () => {
  let app: ClientCallback;
  let stranger: ClientCallback;
  let server: TestServer & { baseUrl: string };
  let browser: Browser;
  let page: Page;
  let tokens: { access_token: string; refresh_token: string };
  let clientId: string;

  beforeAll(async () => {
    app = await clientCallbackServer();
    stranger = await clientCallbackServer();
    server = await listeningOpenIdServer({ cors: { allowedOrigins: [new URL(app.url).origin] }, forceSslInRedirectUri: false });
    await createUser(server.deps, 'alice');
    const { application } = await createClient(server.deps, { confidential: false, redirectUri: app.url, scopes: 'openid read' });
    clientId = application.uid;
    const flow = await publicCodeFlow(server.app, await signedIn(server.app, 'alice'), {
      client_id: clientId,
      redirect_uri: app.url,
      scope: 'openid read',
      state: 'spa',
    });
    tokens = flow.token!.json();
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server, app, stranger));

  /** fetch() from the page at `origin`: the status and JSON it could read, or why the browser refused it. */
  const fetchFrom = async (
    origin: string,
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) => {
    await page.goto(origin);
    return page.evaluate(
      async ({ url, init }): Promise<Answer> => {
        try {
          const response = await fetch(url, init);
          return { status: response.status, body: await response.json() };
        } catch (error) {
          return { failed: String(error) };
        }
      },
      { url, init },
    );
  };
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  it('the listed origin refreshes at the token endpoint and reads UserInfo with its Bearer token (a preflight)', async () => {
    const refreshed = await fetchFrom(
      app.url,
      `${server.baseUrl}/oauth/token`,
      form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId }),
    );
    expect(refreshed.status).toBe(200);
    const { access_token: accessToken } = refreshed.body as { access_token: string };
    const userinfo = await fetchFrom(app.url, `${server.baseUrl}/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(userinfo).toMatchObject({ status: 200, body: { sub: expect.any(String) } });
    const revoked = await fetchFrom(app.url, `${server.baseUrl}/oauth/revoke`, form({ token: accessToken, client_id: clientId }));
    expect(revoked).toEqual({ status: 200, body: {} });
  });

  it('another origin cannot read what the endpoints answer, but reads discovery and the JWKS', async () => {
    const token = await fetchFrom(stranger.url, `${server.baseUrl}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: 'x' }));
    expect(token.failed).toMatch(/TypeError/);
    const discovery = await fetchFrom(stranger.url, `${server.baseUrl}/.well-known/openid-configuration`);
    expect(discovery).toMatchObject({ status: 200, body: { issuer: server.baseUrl } });
    const jwks = await fetchFrom(stranger.url, `${server.baseUrl}/oauth/jwks`);
    expect(jwks).toMatchObject({ status: 200, body: { keys: expect.any(Array) } });
  });
});
