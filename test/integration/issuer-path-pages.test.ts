import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import {
  authorizeUrl,
  CALLBACK,
  createClient,
  createUser,
  hiddenFields,
  PASSWORD,
  userAgent,
  type UserAgent,
} from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { DEVICE_FLOW_CONFIG, deviceAuthorization, deviceClient } from '../helpers/device-flow.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, buildAdminServer } from './applications-support.js';

// SPEC 3.7: an issuer with a path (https://auth.example.com/tenant) behind a proxy that strips /tenant before
// forwarding. The server's routes stay /login, /oauth/authorize...; every URL it gives a browser (redirects, links,
// forms, assets, the session cookie's Path) must carry /tenant, or the browser leaves the issuer. These tests play the
// proxy: a browser's /tenant/login is requested as /login.

const BASE = '/tenant';

/** A root-relative URL in an href, action, src or formaction without the issuer's path. */
const UNPREFIXED = /\b(?:href|action|src|formaction)="\/(?!\/|tenant\/)[^"]*"/g;

/** What the proxy forwards for a browser's URL: the path without /tenant (fails on a URL outside the issuer). */
function proxied(location: unknown): string {
  const url = String(location);
  expect(url.startsWith(`${BASE}/`), `${url} is outside the issuer's path`).toBe(true);
  return url.slice(BASE.length);
}

/** The device entry form's fields, the pre-filled user code with them. */
function hiddenFieldsWithCode(html: string): Record<string, string> {
  const userCode = /name="user_code" value="([^"]+)"/.exec(html)?.[1];
  if (userCode === undefined) throw new Error('no pre-filled user_code');
  return { user_code: userCode };
}

function expectAllPrefixed(page: LightMyRequestResponse): void {
  expect(page.statusCode).toBe(200);
  expect(page.body.match(UNPREFIXED) ?? []).toEqual([]);
}

describe(`an issuer with a path behind a proxy that strips it: pages, redirects and the session cookie (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let aliceId: number;

  beforeAll(async () => {
    server = await buildAdminServer({ ...DEVICE_FLOW_CONFIG, baseUrl: `https://auth.example.com${BASE}` });
    aliceId = (await createUser(server.deps, 'alice')).id;
    client = (await createClient(server.deps, { name: 'Tenant App' })).application;
  });
  afterAll(() => server.close());

  const authorize = (state: string) => authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code', state });

  async function signedInAgent(): Promise<UserAgent> {
    const agent = userAgent(server.app);
    const signIn = await agent.post('/login', { username: 'alice', password: PASSWORD });
    expect(signIn.statusCode).toBe(303);
    return agent;
  }

  it('GET /oauth/authorize without a session redirects to /tenant/login, and the session cookie has Path=/tenant/', async () => {
    const response = await userAgent(server.app).request({ method: 'GET', url: authorize('s1') });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`${BASE}/login`);
    const session = (response.cookies as Array<{ name: string; path?: string }>).find((cookie) => cookie.name === 'oauth_session');
    expect(session?.path).toBe(`${BASE}/`);
  });

  it('the sign-in page posts to /tenant/login and loads its stylesheet and scripts under /tenant/; no URL lacks the path', async () => {
    const page = await userAgent(server.app).request({ method: 'GET', url: '/login' });
    expectAllPrefixed(page);
    expect(page.body).toContain(`<form method="post" action="${BASE}/login">`);
    expect(page.body).toContain(`<link rel="stylesheet" href="${BASE}/assets/style.css">`);
    expect(page.body).toMatch(new RegExp(`<script src="${BASE}/assets/passkeys\\.js"`));
  });

  it('sign-in, consent and the code: each redirect within the issuer carries /tenant; the one to the client is its own absolute URI', async () => {
    const agent = userAgent(server.app);
    const toLogin = await agent.request({ method: 'GET', url: authorize('s2') });
    const csrf = await agent.csrfFrom(proxied(toLogin.headers.location));
    const signIn = await agent.post('/login', { username: 'alice', password: PASSWORD, _csrf: csrf });
    expect(signIn.statusCode).toBe(303);
    expect(signIn.headers.location).toBe(`${BASE}${authorize('s2')}`);

    const consent = await agent.request({ method: 'GET', url: proxied(signIn.headers.location) });
    expectAllPrefixed(consent);
    expect(consent.body).toContain(`<form method="post" action="${BASE}/oauth/authorize">`);
    expect(consent.body).toContain(`href="${BASE}/oauth/authorized_applications"`);

    const approve = await agent.post('/oauth/authorize', hiddenFields(consent.body, 0));
    expect(approve.statusCode).toBe(303);
    const callback = new URL(String(approve.headers.location));
    expect(`${callback.origin}${callback.pathname}`).toBe(CALLBACK);
    expect(callback.searchParams.get('code')).toMatch(/.+/);
    expect(callback.searchParams.get('state')).toBe('s2');
  });

  it('the account and authorized applications pages link, post and sign out under /tenant/; signing out returns to /tenant/login', async () => {
    const agent = await signedInAgent();
    const account = await agent.request({ method: 'GET', url: '/account' });
    expectAllPrefixed(account);
    expect(account.body).toContain(`<form method="post" action="${BASE}/account/password">`);
    expectAllPrefixed(await agent.request({ method: 'GET', url: '/oauth/authorized_applications' }));

    const signOut = await agent.post('/logout', {}, '/account');
    expect(signOut.headers.location).toBe(`${BASE}/login`);
  });

  it('the admin pages link under /tenant/, and an admin redirect goes to /tenant/oauth/applications/:id', async () => {
    const admin = new AdminSession(server.app);
    const index = await admin.get('/oauth/applications');
    expectAllPrefixed(index);
    expect(index.body).toContain(`href="${BASE}/oauth/users"`);
    const created = await admin.submit('/oauth/applications', { name: 'Tenant Admin App', redirect_uri: 'https://example.com/cb' });
    expect(created.statusCode).toBe(302);
    expect(String(created.headers.location)).toMatch(new RegExp(`^${BASE}/oauth/applications/\\d+$`));
    const show = await admin.get(proxied(created.headers.location));
    expectAllPrefixed(show);
    expect(show.body).toContain(`href="${BASE}/oauth/applications/`);
    expectAllPrefixed(await admin.get('/oauth/users'));
    const user = await admin.get(`/oauth/users/${aliceId}`);
    expectAllPrefixed(user);
    expect(user.body).toContain(`action="${BASE}/oauth/users/${aliceId}/disable"`);
    expectAllPrefixed(await admin.get('/oauth/resources'));
    expectAllPrefixed(await admin.get('/oauth/audit'));
  });

  it('the device pages: verification_uri_complete, sign-in and each step of the code entry stay under /tenant/', async () => {
    const { verification_uri_complete: complete } = await deviceAuthorization(server.app, await deviceClient(server.deps));
    const agent = userAgent(server.app);
    const entryPage = proxied(new URL(complete).pathname + new URL(complete).search);
    const toLogin = await agent.request({ method: 'GET', url: entryPage });
    expect(toLogin.headers.location).toBe(`${BASE}/login`);
    const signIn = await agent.post(proxied(toLogin.headers.location), { username: 'alice', password: PASSWORD });
    expect(signIn.headers.location).toBe(`${BASE}${entryPage}`);
    const entry = await agent.request({ method: 'GET', url: entryPage });
    expectAllPrefixed(entry);
    expect(entry.body).toContain(`action="${BASE}/device"`);
    const entered = await agent.post('/device', hiddenFieldsWithCode(entry.body), entryPage);
    expect(entered.headers.location).toBe(`${BASE}/device/consent`);
    const consent = await agent.request({ method: 'GET', url: proxied(entered.headers.location) });
    expectAllPrefixed(consent);
    expect(consent.body).toContain(`action="${BASE}/device/decision"`);
  });
});
