import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { createClient } from '../helpers/end-user.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { randomBytes } from 'node:crypto';
import type { TestServer } from '../helpers/test-server.js';
import { fetchBrowser, signInAtUpstream, type FetchBrowser } from '../helpers/upstream-browser.js';
import { upstreamForProduct, type UpstreamProvider } from '../helpers/upstream-provider.js';

// OpenID Connect Core 3.1.2.1 through an upstream (issue 37): an authorization request with prompt=login or a max_age
// sends the user to sign in (again); through an upstream, its max_age (prompt=login: prompt=login and max_age=0) goes
// with the redirect, and an ID token whose auth_time is older than it allows (the upstream's own session answered
// silently) is a failed sign-in: the failure page, the log line, no new login session.

const ACCOUNTS = { 'rita-1': { email: 'rita@corp.example', email_verified: true, preferred_username: 'rita' } };
const CALLBACK = 'https://client.example.com/callback';

describe('prompt=login and max_age through an upstream identity provider', () => {
  let upstream: UpstreamProvider;
  let server: TestServer & { baseUrl: string };
  const logs = capturedLogLines();
  let clientId: string;

  beforeAll(async () => {
    let port: number;
    ({ upstream, port } = await upstreamForProduct(['corp'], ACCOUNTS));
    server = await listeningTestServer(
      {
        openid: { enabled: true },
        log: { level: 'info', format: 'json' },
        identityProviders: [
          { id: 'corp', name: 'Corp SSO', issuer: upstream.issuer, clientId: 'oauth-service' },
        ] as IdentityProviderConfig[],
      },
      {
        port,
        env: { IDP_CORP_CLIENT_SECRET: 'upstream-secret', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
        logStream: logs.stream,
      },
    );
    clientId = (await createClient(server.deps, { redirectUri: CALLBACK, scopes: 'openid' })).application.uid;
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.stop();
  });

  const authorizeUrl = (extra: Record<string, string>) => {
    const url = new URL('/oauth/authorize', server.baseUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CALLBACK,
      scope: 'openid',
      state: 'xyz',
      nonce: 'n-1',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuKAgLNVw1c',
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    return url.href;
  };
  const sessionsOfRita = async () => {
    const rita = await server.deps.stores.users.findByUsername('rita');
    return server.deps.stores.loginSessions.listOfUser(rita!.id, new Date(0));
  };

  /** A browser signed in here through the upstream, so that both it and the upstream have a session. */
  async function signedInBrowser(): Promise<FetchBrowser> {
    const browser = fetchBrowser();
    const back = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'rita-1');
    expect(back.url.startsWith(server.baseUrl)).toBe(true);
    return browser;
  }

  it('prompt=login: the upstream is asked for prompt=login and max_age=0, and shows its login again', async () => {
    const browser = await signedInBrowser();
    const login = await browser.open(authorizeUrl({ prompt: 'login' }));
    expect(login.url).toBe(`${server.baseUrl}/login`);
    const redirect = new URL(await browser.redirectOf(`${server.baseUrl}/login/upstream/corp`));
    expect(redirect.searchParams.get('prompt')).toBe('login');
    expect(redirect.searchParams.get('max_age')).toBe('0');
    const atUpstream = await browser.open(redirect.href);
    expect(atUpstream.url.startsWith(`${upstream.issuer}/interaction/`)).toBe(true);
    const back = await signInAtUpstream(browser, atUpstream, 'rita-1');
    expect(back.url.startsWith(CALLBACK) || back.url.startsWith(`${server.baseUrl}/oauth/authorize`)).toBe(true);
    expect(logs.lines).not.toContainEqual(expect.objectContaining({ event: 'login.upstream_failed' }));
  });

  it('without a session here, prompt=login and max_age still go to the upstream, whose own session may be older', async () => {
    const browser = fetchBrowser();
    expect((await browser.open(authorizeUrl({ prompt: 'login' }))).url).toBe(`${server.baseUrl}/login`);
    const forced = new URL(await browser.redirectOf(`${server.baseUrl}/login/upstream/corp`));
    expect([forced.searchParams.get('prompt'), forced.searchParams.get('max_age')]).toEqual(['login', '0']);
    const fresh = fetchBrowser();
    expect((await fresh.open(authorizeUrl({ max_age: '300' }))).url).toBe(`${server.baseUrl}/login`);
    const bounded = new URL(await fresh.redirectOf(`${server.baseUrl}/login/upstream/corp`));
    expect([bounded.searchParams.get('prompt'), bounded.searchParams.get('max_age')]).toEqual([null, '300']);
  });

  it('idp_hint with prompt=login goes straight to the upstream with prompt=login and max_age=0', async () => {
    const browser = await signedInBrowser();
    const atUpstream = await browser.open(authorizeUrl({ prompt: 'login', idp_hint: 'corp' }));
    expect(atUpstream.url.startsWith(`${upstream.issuer}/interaction/`)).toBe(true);
    expect(atUpstream.body).toMatch(/name="login"/);
  });

  it('an auth_time later than now (an upstream clock ahead, or a forged one) is no fresh sign-in: the failure page', async () => {
    const browser = await signedInBrowser();
    const sessions = (await sessionsOfRita()).length;
    // This server's clock 10 minutes behind the upstream's: the upstream's auth_time is 10 minutes ahead of it.
    server.clock.advance(-600);
    try {
      expect((await browser.open(authorizeUrl({ prompt: 'login' }))).url).toBe(`${server.baseUrl}/login`);
      const atUpstream = await browser.open(await browser.redirectOf(`${server.baseUrl}/login/upstream/corp`));
      const page = await signInAtUpstream(browser, atUpstream, 'rita-1');
      expect(page.status).toBe(502);
      expect(logs.lines).toContainEqual(
        expect.objectContaining({ event: 'login.upstream_failed', reason: 'invalid_response', detail: expect.stringMatching(/future/) }),
      );
      expect((await sessionsOfRita()).length).toBe(sessions);
    } finally {
      server.clock.advance(600);
    }
  });

  it('an ID token issued in the future (its iat; an upstream clock an hour ahead, or a forged token) signs nobody in', async () => {
    await signedInBrowser();
    const sessions = (await sessionsOfRita()).length;
    server.clock.advance(-3600);
    try {
      const browser = fetchBrowser();
      const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'rita-1');
      expect(page.status).toBe(502);
      expect(logs.lines).toContainEqual(
        expect.objectContaining({ event: 'login.upstream_failed', reason: 'invalid_response', detail: expect.stringMatching(/iat/) }),
      );
      expect((await sessionsOfRita()).length).toBe(sessions);
    } finally {
      server.clock.advance(3600);
    }
  });

  it('an upstream that answers from its own session (auth_time before the round trip): the failure page, no sign-in', async () => {
    const browser = await signedInBrowser();
    const sessions = (await sessionsOfRita()).length;
    server.clock.advance(600);
    expect((await browser.open(authorizeUrl({ max_age: '60' }))).url).toBe(`${server.baseUrl}/login`);
    const redirect = new URL(await browser.redirectOf(`${server.baseUrl}/login/upstream/corp`));
    expect(redirect.searchParams.get('max_age')).toBe('60');
    expect(redirect.searchParams.get('prompt')).toBeNull();
    // An upstream that ignores both: it answers from its own session, without asking.
    redirect.searchParams.delete('prompt');
    redirect.searchParams.set('max_age', '3600');
    const page = await browser.open(redirect.href);
    expect(page.status).toBe(502);
    expect(page.body).toContain('Sign-in with Corp SSO failed');
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        event: 'login.upstream_failed',
        provider: 'corp',
        reason: 'invalid_response',
        detail: expect.stringMatching(/auth_time/),
      }),
    );
    expect((await sessionsOfRita()).length).toBe(sessions);
  });
});
