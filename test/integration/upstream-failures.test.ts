import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { PASSWORD } from '../helpers/end-user.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import type { TestServer } from '../helpers/test-server.js';
import { fetchBrowser, signInAtUpstream, type Page } from '../helpers/upstream-browser.js';
import { upstreamForProduct, type UpstreamProvider } from '../helpers/upstream-provider.js';

// Issue 37 item 5: each way a sign-in through an upstream fails gives a page that names the provider and says what to
// do, a log line { event: 'login.upstream_failed', provider, reason }, and no user row. The upstream (node-oidc-provider
// in its own process) misbehaves for real where it can: slower than the timeout (its HTTP edge waits), ID tokens whose
// signature its published keys do not verify (its /jwks answers another key set), stopped. A wrong nonce is an
// authorization request whose nonce was changed on the way to it; an error answer and a foreign state are callbacks
// made as an upstream or an attacker would send them.

const ACCOUNTS = {
  'ann-1': { email: 'ann@corp.example', email_verified: true, preferred_username: 'ann' },
  'out-1': { email: 'out@other.example', email_verified: true, preferred_username: 'out' },
  'gone-1': { email: 'gone@corp.example', email_verified: true, preferred_username: 'gone' },
  // Stored as U+FFFD, this email would be another's ("a\ufffd@..."), and a NUL in it failed the lookup (a 500).
  'odd-1': { email: 'a\ud800@corp.example', email_verified: true, preferred_username: 'odd' },
  // A name nested past 32 levels (JSON stored as text, which thousands of levels would overflow).
  'deep-1': {
    email: 'deep@corp.example',
    email_verified: true,
    preferred_username: 'deep',
    name: JSON.parse('['.repeat(40) + ']'.repeat(40)),
  },
};
const IDS = ['corp', 'sig', 'slow', 'domains', 'closed', 'down', 'disabled', 'wrongsecret'];

describe('sign-in through an upstream that fails', () => {
  let upstream: UpstreamProvider;
  let server: TestServer & { baseUrl: string };
  const logs = capturedLogLines();
  const usersCount = async () =>
    Number((await server.testDatabase.database.sql.query<{ n: string }>('SELECT count(*) AS n FROM users'))[0]!.n);
  let before: number;

  beforeAll(async () => {
    let port: number;
    ({ upstream, port } = await upstreamForProduct(IDS, ACCOUNTS));
    const entry = (id: string, fields: Partial<IdentityProviderConfig> = {}) => ({
      id,
      name: `Corp ${id}`,
      issuer: upstream.issuer,
      clientId: 'oauth-service',
      ...fields,
    });
    const env = Object.fromEntries(IDS.map((id) => [`IDP_${id.toUpperCase()}_CLIENT_SECRET`, 'upstream-secret']));
    env.IDP_WRONGSECRET_CLIENT_SECRET = 'not-the-upstream-secret';
    server = await listeningTestServer(
      {
        log: { level: 'info', format: 'json' },
        identityProviders: [
          entry('corp'),
          entry('sig'),
          entry('slow', { timeoutSeconds: 1 }),
          entry('domains', { allowedDomains: ['corp.example'] }),
          entry('closed', { createUsers: false }),
          entry('down'),
          entry('disabled', { linkByVerifiedEmail: true }),
          entry('wrongsecret'),
        ] as IdentityProviderConfig[],
      },
      { port, env, logStream: logs.stream },
    );
    before = await usersCount();
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.stop();
  });

  /** The page says which provider failed; the log says why; nobody was created. */
  async function expectFailure(page: Page, id: string, status: number, reason: string, text: RegExp) {
    expect(page.status).toBe(status);
    expect(page.body).toContain(`Sign-in with Corp ${id} failed`);
    expect(page.body).toMatch(text);
    expect(page.body).toContain('Sign in another way');
    expect(logs.lines).toContainEqual(expect.objectContaining({ event: 'login.upstream_failed', provider: id, reason }));
    expect(await usersCount()).toBe(before);
  }

  it('an ID token whose signature the published keys do not verify: 502, and no user', async () => {
    await upstream.control({ otherJwks: true });
    const browser = fetchBrowser();
    const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/sig`), 'ann-1');
    await upstream.control({ otherJwks: false });
    await expectFailure(page, 'sig', 502, 'invalid_response', /failed our security checks/);
    expect(logs.lines.findLast((entry) => entry.event === 'login.upstream_failed')?.detail).toMatch(/signature/i);
    // No token and no code in any log line (the callback's URL is logged with its code redacted).
    expect(logs.raw.join('\n')).not.toMatch(/eyJ[\w-]+\.eyJ|[?&]code=(?!\[Redacted\])/);
  });

  it('a claim with an unpaired surrogate (or a NUL) is refused as invalid_response, and nobody is made or linked', async () => {
    const browser = fetchBrowser();
    const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'odd-1');
    await expectFailure(page, 'corp', 502, 'invalid_response', /failed our security checks/);
    expect(logs.lines.findLast((entry) => entry.event === 'login.upstream_failed')?.detail).toMatch(/unpaired UTF-16 surrogate/);
  });

  it('a kept claim nested more than 32 levels deep is refused as invalid_response, and nobody is made', async () => {
    const browser = fetchBrowser();
    const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/corp`), 'deep-1');
    await expectFailure(page, 'corp', 502, 'invalid_response', /failed our security checks/);
    expect(logs.lines.findLast((entry) => entry.event === 'login.upstream_failed')?.detail).toMatch(
      /a claim is nested too deeply \(at most 32 levels of objects and arrays\)/,
    );
  });

  it('an ID token with another nonce than this browser sent: 502', async () => {
    const browser = fetchBrowser();
    const authorization = new URL(await browser.redirectOf(`${server.baseUrl}/login/upstream/corp`));
    authorization.searchParams.set('nonce', 'not-the-nonce-sent');
    const page = await signInAtUpstream(browser, await browser.open(authorization.href), 'ann-1');
    await expectFailure(page, 'corp', 502, 'invalid_response', /failed our security checks/);
    const line = logs.lines.findLast((entry) => entry.event === 'login.upstream_failed');
    expect(line?.detail).toMatch(/"nonce" claim/);
    expect(logs.raw.join('\n')).not.toContain('not-the-nonce-sent');
  });

  it('an error answer of the upstream (access_denied): 502 naming the provider', async () => {
    const browser = fetchBrowser();
    const state = new URL(await browser.redirectOf(`${server.baseUrl}/login/upstream/corp`)).searchParams.get('state')!;
    const callback = new URL(`${server.baseUrl}/login/upstream/corp/callback`);
    callback.search = new URLSearchParams({ error: 'access_denied', state, iss: upstream.issuer }).toString();
    await expectFailure(await browser.open(callback.href), 'corp', 502, 'error_response', /refused the sign-in/);
  });

  it('an upstream that refuses our client secret (401 invalid_client with a WWW-Authenticate challenge): 502 error_response, not a 500', async () => {
    const browser = fetchBrowser();
    const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/wrongsecret`), 'ann-1');
    await expectFailure(page, 'wrongsecret', 502, 'error_response', /refused the sign-in/);
    expect(logs.lines.findLast((entry) => entry.event === 'login.upstream_failed')?.detail).toMatch(/^invalid_client.*HTTP 401/);
    expect(logs.raw.join('\n')).not.toContain('not-the-upstream-secret');
  });

  it('a callback with a state this browser was not sent, or to a browser that started nothing: 400', async () => {
    const browser = fetchBrowser();
    await browser.redirectOf(`${server.baseUrl}/login/upstream/corp`);
    const forged = await browser.open(`${server.baseUrl}/login/upstream/corp/callback?code=stolen&state=forged`);
    await expectFailure(forged, 'corp', 400, 'state_mismatch', /does not belong to the sign-in/);
    const fresh = await fetchBrowser().open(`${server.baseUrl}/login/upstream/corp/callback?code=stolen&state=forged`);
    await expectFailure(fresh, 'corp', 400, 'no_pending_sign_in', /was not started in this browser/);
  });

  it('an id no provider has: 404, said in the language the browser asks for', async () => {
    const english = await fetch(`${server.baseUrl}/login/upstream/nobody`);
    expect(english.status).toBe(404);
    expect(await english.text()).toContain('No identity provider has this id.');
    const german = await fetch(`${server.baseUrl}/login/upstream/nobody/callback?code=c&state=s`, { headers: { 'accept-language': 'de' } });
    expect(german.status).toBe(404);
    expect(await german.text()).toContain('Es gibt keinen Identitätsanbieter mit dieser Kennung.');
  });

  it('a user outside allowedDomains: 403', async () => {
    const browser = fetchBrowser();
    const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/domains`), 'out-1');
    await expectFailure(page, 'domains', 403, 'domain_not_allowed', /email domain is not allowed/);
    expect(page.body).not.toContain('Try again');
  });

  it('no local user and createUsers off: 403', async () => {
    const browser = fetchBrowser();
    const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/closed`), 'ann-1');
    await expectFailure(page, 'closed', 403, 'no_user', /not created automatically/);
  });

  it('a disabled local user: 403, not signed in', async () => {
    const hash = await server.deps.passwords.hash(PASSWORD);
    const gone = await server.deps.stores.userAdmin.create({
      username: 'gone',
      passwordHash: hash,
      email: 'gone@corp.example',
      emailVerified: true,
    });
    await server.deps.stores.userAdmin.setDisabledAt(gone.id, new Date());
    before = await usersCount();
    const browser = fetchBrowser();
    const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/disabled`), 'gone-1');
    await expectFailure(page, 'disabled', 403, 'user_disabled', /disabled/);
    expect(await server.deps.stores.loginSessions.listOfUser(gone.id, new Date(0))).toEqual([]);
  });

  it('an upstream slower than timeoutSeconds: 502 after the timeout', async () => {
    await upstream.control({ delayMs: 1500 });
    const page = await fetchBrowser().open(`${server.baseUrl}/login/upstream/slow`);
    await upstream.control({ delayMs: 0 });
    await expectFailure(page, 'slow', 502, 'timeout', /did not answer in time/);
  });

  it('an upstream that is stopped: 502', async () => {
    await upstream.stop();
    const page = await fetchBrowser().open(`${server.baseUrl}/login/upstream/down`);
    await expectFailure(page, 'down', 502, 'unreachable', /could not be reached/);
    expect(page.body).toContain('href="/login/upstream/down"');
  });
});
