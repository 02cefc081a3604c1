import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { BACKCHANNEL_LOGOUT_EVENT, backchannelReceiver, type BackchannelReceiver } from '../helpers/backchannel-receiver.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { csrfOf, fetchBrowser, signInAtUpstream, type FetchBrowser } from '../helpers/upstream-browser.js';
import { upstreamForProduct, type UpstreamProvider } from '../helpers/upstream-provider.js';

// Issue 37 item 4: logout with the upstream. Our POST /logout ends the upstream session too (RP-Initiated Logout 1.0
// at its end_session_endpoint) where endUpstreamSession says so; the upstream's back-channel logout token (Back-Channel
// Logout 1.0) ends our sessions started through it. node-oidc-provider, in its own process, is the upstream.

/** The login sessions of a user of the server (none without such a user). */
async function sessionsOf(server: TestServer, username: string) {
  const user = await server.deps.stores.users.findByUsername(username);
  return user === null ? [] : server.deps.stores.loginSessions.listOfUser(user.id, new Date(0));
}

describe('logout with an upstream identity provider', () => {
  let upstream: UpstreamProvider;
  let server: TestServer & { baseUrl: string };
  const logs = capturedLogLines();
  const signIn = async (browser: FetchBrowser) =>
    signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'lee-1');

  beforeAll(async () => {
    let port: number;
    ({ upstream, port } = await upstreamForProduct(
      ['corp', 'corp-again'],
      { 'lee-1': { email: 'lee@corp.example', email_verified: true, preferred_username: 'lee' } },
      (base) => ({
        post_logout_redirect_uris: [`${base}/login`],
        backchannel_logout_uri: `${base}/login/upstream/corp/backchannel-logout`,
        backchannel_logout_session_required: true,
      }),
    ));
    server = await listeningTestServer(
      {
        log: { level: 'info', format: 'json' },
        identityProviders: [
          { id: 'corp', name: 'Corp SSO', issuer: upstream.issuer, clientId: 'oauth-service', endUpstreamSession: true },
          // The same upstream client again (another button, other settings): one back-channel logout URI serves both.
          { id: 'corp-again', name: 'Corp SSO again', issuer: upstream.issuer, clientId: 'oauth-service' },
        ] as IdentityProviderConfig[],
      },
      { port, env: { IDP_CORP_CLIENT_SECRET: 'upstream-secret', IDP_CORP_AGAIN_CLIENT_SECRET: 'upstream-secret' }, logStream: logs.stream },
    );
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.stop();
  });

  it('the login session keeps the upstream sid and ID token; POST /logout goes on to the upstream end_session_endpoint', async () => {
    const browser = fetchBrowser();
    await signIn(browser);
    const [session] = await sessionsOf(server, 'lee');
    expect(session).toMatchObject({ upstreamProviderId: 'corp', upstreamSubject: 'lee-1' });
    expect(session!.upstreamSessionId).toEqual(expect.any(String));
    expect(session!.upstreamIdToken).toMatch(/^eyJ/);
    const logoutPage = await browser.open(`${server.baseUrl}/logout`);
    const confirm = await browser.submit(`${server.baseUrl}/logout`, { _csrf: csrfOf(logoutPage) });
    expect(await sessionsOf(server, 'lee')).toEqual([]);
    expect(confirm.url.startsWith(`${upstream.issuer}/session/end`)).toBe(true);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.body)![1]!;
    const back = await browser.submit(`${upstream.issuer}/session/end/confirm`, { xsrf, logout: 'yes' });
    expect(back.url).toBe(`${server.baseUrl}/login`);
    // The upstream session is over: signing in through it asks for the login again.
    expect((await browser.open(`${server.baseUrl}/login/upstream/corp`)).body).toContain('name="login"');
  });

  it('the upstream’s back-channel logout token ends the session started through it', async () => {
    const browser = fetchBrowser();
    await signIn(browser);
    expect(await sessionsOf(server, 'lee')).toHaveLength(1);
    const confirm = await browser.open(`${upstream.issuer}/session/end`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.body)![1]!;
    await browser.submit(`${upstream.issuer}/session/end/confirm`, { xsrf, logout: 'yes' });
    expect(await sessionsOf(server, 'lee'), upstream.output()).toEqual([]);
    expect(logs.lines).toContainEqual(expect.objectContaining({ event: 'logout.upstream_backchannel', provider: 'corp', ended: 1 }));
  });

  it("the upstream's one back-channel logout URI also ends a session begun through another entry of the same upstream client", async () => {
    const browser = fetchBrowser();
    await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp-again`), 'lee-1');
    expect(await sessionsOf(server, 'lee')).toMatchObject([{ upstreamProviderId: 'corp-again' }]);
    const confirm = await browser.open(`${upstream.issuer}/session/end`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.body)![1]!;
    await browser.submit(`${upstream.issuer}/session/end/confirm`, { xsrf, logout: 'yes' });
    expect(await sessionsOf(server, 'lee'), upstream.output()).toEqual([]);
  });

  it('a session begun through a provider since removed from the config is over: the account page asks for a sign-in', async () => {
    const browser = fetchBrowser();
    await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp-again`), 'lee-1');
    const cookie = browser.cookieHeader(server.baseUrl);
    // The same database and session secret, with corp-again taken out of identityProviders (a restart with the new config).
    const [corp] = server.config.identityProviders;
    const restarted = await buildTestServer({
      testDatabase: server.testDatabase,
      config: { baseUrl: server.baseUrl, identityProviders: [corp!] as IdentityProviderConfig[] },
      env: { IDP_CORP_CLIENT_SECRET: 'upstream-secret' },
    });
    try {
      const account = (app: TestServer['app']) => app.inject({ method: 'GET', url: '/account', headers: { cookie } });
      expect((await account(server.app)).statusCode).toBe(200);
      const after = await account(restarted.app);
      expect(after.statusCode).toBe(302);
      expect(after.headers.location).toBe('/login');
    } finally {
      await restarted.close();
    }
    // Signed in there still (its provider is configured), it ends the session as before.
    await browser.open(`${server.baseUrl}/logout`).then((page) => browser.submit(`${server.baseUrl}/logout`, { _csrf: csrfOf(page) }));
    expect(await sessionsOf(server, 'lee')).toEqual([]);
  });

  it('refuses a logout token that is not one the upstream signed, with 400 and no session ended', async () => {
    const browser = fetchBrowser();
    await signIn(browser);
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const claims = Buffer.from(JSON.stringify({ iss: upstream.issuer, aud: 'oauth-service', sub: 'lee-1', iat: 1, jti: 'x' })).toString(
      'base64url',
    );
    for (const token of ['not-a-jwt', `${header}.${claims}.`]) {
      const response = await fetch(`${server.baseUrl}/login/upstream/corp/backchannel-logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: token }).toString(),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'invalid_request' });
    }
    expect(await sessionsOf(server, 'lee')).toHaveLength(1);
  });
});

describe('a logout token of the upstream is used once', () => {
  let upstream: UpstreamProvider;
  let receiver: BackchannelReceiver;
  let server: TestServer & { baseUrl: string };
  const logs = capturedLogLines();
  const deliver = (logoutToken: string) =>
    fetch(`${server.baseUrl}/login/upstream/corp/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: logoutToken }).toString(),
    });

  beforeAll(async () => {
    // The upstream sends its logout token to a receiver here, which the test then delivers (twice) as the upstream would.
    receiver = await backchannelReceiver();
    let port: number;
    ({ upstream, port } = await upstreamForProduct(
      ['corp'],
      { 'lee-1': { email: 'lee@corp.example', email_verified: true, preferred_username: 'lee' } },
      () => ({ backchannel_logout_uri: receiver.url, backchannel_logout_session_required: true }),
    ));
    server = await listeningTestServer(
      {
        log: { level: 'info', format: 'json' },
        identityProviders: [
          { id: 'corp', name: 'Corp SSO', issuer: upstream.issuer, clientId: 'oauth-service' },
        ] as IdentityProviderConfig[],
      },
      { port, env: { IDP_CORP_CLIENT_SECRET: 'upstream-secret' }, logStream: logs.stream },
    );
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.stop();
    await receiver?.close();
  });

  it('the first delivery ends the session; the same token again is refused with 400 and ends nothing', async () => {
    const browser = fetchBrowser();
    await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'lee-1');
    const confirm = await browser.open(`${upstream.issuer}/session/end`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.body)![1]!;
    await browser.submit(`${upstream.issuer}/session/end/confirm`, { xsrf, logout: 'yes' });
    const { logoutToken } = await receiver.next();
    expect(logoutToken).toMatch(/^eyJ/);

    expect((await deliver(logoutToken!)).status).toBe(200);
    expect(await sessionsOf(server, 'lee')).toEqual([]);

    const again = fetchBrowser();
    await signInAtUpstream(again, await again.open(`${server.baseUrl}/login/upstream/corp`), 'lee-1');
    const replayed = await deliver(logoutToken!);
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toEqual({ error: 'invalid_request', error_description: 'the logout token was used already (its jti)' });
    expect(await sessionsOf(server, 'lee')).toHaveLength(1);
    expect(logs.lines).toContainEqual(expect.objectContaining({ event: 'logout.upstream_backchannel_refused', provider: 'corp' }));
  });

  it('a body without one logout_token (none, two, a JSON object) gets the JSON error too, not the HTML error page', async () => {
    const url = `${server.baseUrl}/login/upstream/corp/backchannel-logout`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const [headers, body] of [
      [form, 'x=1'],
      [form, 'logout_token=a&logout_token=b'],
      [{ 'content-type': 'application/json' }, JSON.stringify({ logout_token: { a: 1 } })],
    ] as const) {
      const response = await fetch(url, { method: 'POST', headers, body });
      expect(response.status, body).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({
        error: 'invalid_request',
        error_description: 'The request must carry one logout_token, a JWT, as a form (Back-Channel Logout 1.0 section 2.5).',
      });
    }
  });

  // exp is required only since the specification's errata 1: an older upstream's token without one counts as valid for
  // 10 minutes after its iat (upstream-logout.ts), its jti used once within them.
  const withoutExp = (iat: number, jti: string) =>
    upstream.signLogoutToken({
      iss: upstream.issuer,
      aud: 'oauth-service',
      sub: 'lee-1',
      iat,
      jti,
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    });

  it('a logout token without exp ends the session within 10 minutes of its iat, once', async () => {
    const browser = fetchBrowser();
    await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'lee-1');
    const token = await withoutExp(Math.floor(Date.now() / 1000) - 590, 'without-exp-1');
    expect((await deliver(token)).status).toBe(200);
    expect(await sessionsOf(server, 'lee')).toEqual([]);

    await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'lee-1');
    const replayed = await deliver(token);
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toEqual({ error: 'invalid_request', error_description: 'the logout token was used already (its jti)' });
    expect(await sessionsOf(server, 'lee')).toHaveLength(1);
  });

  // A NUL reached the sessions' lookup (a 500); an exp past JavaScript's dates failed the jti's record (a 500, after
  // the sessions had ended).
  it('refuses a logout token whose sid or sub holds a NUL, whose exp is more than a day away, or whose jti is no string, and ends nothing', async () => {
    const browser = fetchBrowser();
    await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'lee-1');
    const before = (await sessionsOf(server, 'lee')).length;
    const now = Math.floor(Date.now() / 1000);
    const token = (claims: Record<string, unknown>) =>
      upstream.signLogoutToken({
        iss: upstream.issuer,
        aud: 'oauth-service',
        iat: now,
        exp: now + 120,
        jti: `odd-${Math.random()}`,
        events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
        ...claims,
      });
    for (const [claims, description] of [
      [{ sid: 'a\u0000' }, "the logout token's claims must not hold a NUL character or an unpaired UTF-16 surrogate"],
      [{ sub: 'lee-1\u0000' }, "the logout token's claims must not hold a NUL character or an unpaired UTF-16 surrogate"],
      [{ sub: 'lee-1', exp: 1e308 }, 'a logout token may be valid for at most 86400 seconds (its exp)'],
      [{ sub: 'lee-1', exp: now + 86_500 }, 'a logout token may be valid for at most 86400 seconds (its exp)'],
      // Without exp an iat far ahead made its record's date unwritable (a 500 after the sessions ended, the jti not kept).
      [{ sub: 'lee-1', exp: undefined, iat: 1e13 }, 'the logout token was issued in the future (its iat)'],
      [{ sub: 'lee-1', iat: now + 3600 }, 'the logout token was issued in the future (its iat)'],
      // As text every object was one jti ("[object Object]"): the second such token was refused as a replay.
      [{ sub: 'lee-1', jti: { id: 1 } }, "the logout token's jti is not a string"],
      [{ sub: 'lee-1', jti: 7 }, "the logout token's jti is not a string"],
      [{ sub: 'lee-1', jti: '' }, "the logout token's jti is not a string"],
    ] as const) {
      const response = await deliver(await token(claims));
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: description },
      });
    }
    expect(await sessionsOf(server, 'lee')).toHaveLength(before);
  });

  it('refuses a logout token without exp more than 10 minutes after its iat, and ends nothing', async () => {
    const browser = fetchBrowser();
    await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'lee-1');
    const before = (await sessionsOf(server, 'lee')).length;
    const response = await deliver(await withoutExp(Math.floor(Date.now() / 1000) - 610, 'without-exp-2'));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'a logout token without exp is accepted for 600 seconds after its iat',
    });
    expect(await sessionsOf(server, 'lee')).toHaveLength(before);
  });
});
