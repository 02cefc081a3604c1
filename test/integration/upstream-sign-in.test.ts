import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { DEFAULT_AFTER_LOGIN } from '../../src/http/hooks/authenticate-resource-owner.js';
import type { UserRecord } from '../../src/oauth/store.js';
import { createClient, PASSWORD } from '../helpers/end-user.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { codeAt, secretOnPage } from '../helpers/second-factor.js';
import type { TestServer } from '../helpers/test-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { csrfOf, fetchBrowser, formAction, signInAtUpstream, type FetchBrowser } from '../helpers/upstream-browser.js';
import { SoftwareAuthenticator } from '../../scripts/lib/software-authenticator.js';
import { upstreamForProduct, type UpstreamProvider } from '../helpers/upstream-provider.js';

// Issue 37 items 2 and 3: sign-in through an upstream OpenID Provider (node-oidc-provider in its own process), with a
// browser made of fetch and cookie jars: just-in-time users, linking by verified email on and off (then the proof of
// the local account), a second identity for one user, claims refreshed at each sign-in, amr fed, idp_hint.

const ACCOUNTS = {
  'new-1': { email: 'newbie@corp.example', email_verified: true, preferred_username: 'newbie', name: 'New Bie' },
  'carol-1': { email: 'carol@corp.example', email_verified: true, preferred_username: 'carol.c', name: 'Carol Upstream' },
  'carol-2': { email: 'Carol@corp.example', email_verified: true, name: 'Carol Second' },
  'dave-1': { email: 'dave@corp.example', email_verified: true, preferred_username: 'dave.d', name: 'Dave Upstream' },
  'erin-1': { email: 'erin@corp.example', email_verified: true, preferred_username: 'erin.e', name: 'Erin Upstream' },
  'plain-1': { email: 'plain@corp.example', email_verified: true, nickname: 'plainly', name: 'Plain OAuth' },
  'dup-1': { email: 'someone@corp.example', email_verified: false, preferred_username: 'dup', name: 'Not The Local Dup' },
  'tina-1': { email: 'tina@corp.example', email_verified: true, preferred_username: 'tina.t', name: 'Tina Upstream' },
  'frank-1': { email: 'frank@corp.example', email_verified: true, preferred_username: 'frank.f', name: 'Frank Upstream' },
};

const LOGO = join(temporaryFolder('upstream-logo'), 'corp.svg');
writeFileSync(LOGO, '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>');

describe('sign-in through an upstream identity provider (/login/upstream/:id)', () => {
  let upstream: UpstreamProvider;
  let server: TestServer & { baseUrl: string };
  const sql = () => server.testDatabase.database.sql;
  const usersCount = async () => Number((await sql().query<{ n: string }>('SELECT count(*) AS n FROM users'))[0]!.n);
  const identitiesOf = (userId: number) =>
    sql().query<{ subject: string; provider_id: string; email: string }>(
      'SELECT subject, provider_id, email FROM oauth_federated_subjects WHERE user_id = $1 ORDER BY subject',
      [userId],
    );
  const byName = async (username: string) => (await server.deps.stores.users.findByUsername(username))!;
  const localUser = (username: string, email: string, name: string): Promise<UserRecord> =>
    server.deps.passwords
      .hash(PASSWORD)
      .then((passwordHash) => server.deps.stores.userAdmin.create({ username, passwordHash, email, emailVerified: true, name }));

  beforeAll(async () => {
    let port: number;
    ({ upstream, port } = await upstreamForProduct(['corp', 'corp-link', 'plain', 'corp-closed'], ACCOUNTS));
    const provider = { issuer: upstream.issuer, clientId: 'oauth-service' };
    server = await listeningTestServer(
      {
        identityProviders: [
          { ...provider, id: 'corp', name: 'Corp SSO', logoFile: LOGO },
          { ...provider, id: 'corp-link', name: 'Corp SSO (linking)', linkByVerifiedEmail: true },
          { ...provider, id: 'corp-closed', name: 'Corp SSO (no new users)', createUsers: false },
          // type oauth2, GitHub-style: nothing discovered, the claims read at its user endpoint with the access token.
          {
            ...provider,
            id: 'plain',
            name: 'Plain OAuth',
            type: 'oauth2',
            authorizationEndpoint: `${upstream.issuer}/auth`,
            tokenEndpoint: `${upstream.issuer}/token`,
            userinfoEndpoint: `${upstream.issuer}/me`,
            claims: { username: 'nickname' },
          },
          // The loader fills in the defaults, as for a file.
        ] as IdentityProviderConfig[],
      },
      {
        port,
        env: {
          IDP_CORP_CLIENT_SECRET: 'upstream-secret',
          IDP_CORP_LINK_CLIENT_SECRET: 'upstream-secret',
          IDP_PLAIN_CLIENT_SECRET: 'upstream-secret',
          IDP_CORP_CLOSED_CLIENT_SECRET: 'upstream-secret',
        },
      },
    );
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.stop();
  });

  /** A fresh browser signed in at the upstream as `account` through provider `id`; the page it ends at here. */
  async function signInThrough(id: string, account: string, browser: FetchBrowser = fetchBrowser()) {
    const login = await browser.open(`${server.baseUrl}/login/upstream/${id}`);
    expect(login.url.startsWith(upstream.issuer)).toBe(true);
    return { browser, page: await signInAtUpstream(browser, login, account) };
  }

  it('/login shows a button per provider', async () => {
    const page = await fetchBrowser().open(`${server.baseUrl}/login`);
    expect(page.body).toContain('href="/login/upstream/corp"');
    expect(page.body).toContain('Sign in with Corp SSO');
    expect(page.body).toContain('Sign in with Corp SSO (linking)');
    expect(page.body).toContain('src="/login/upstream/corp/logo"');
  });

  it('serves a logo read at boot; an SVG with a sandboxing Content-Security-Policy', async () => {
    const logo = await fetch(`${server.baseUrl}/login/upstream/corp/logo`);
    expect(logo.headers.get('content-type')).toBe('image/svg+xml');
    expect(logo.headers.get('content-security-policy')).toContain('sandbox');
    expect(await logo.text()).toContain('<svg');
    expect((await fetch(`${server.baseUrl}/login/upstream/corp-link/logo`)).status).toBe(404);
  });

  it('creates a user just in time with the mapped claims and signs in with amr fed', async () => {
    const before = await usersCount();
    const { page } = await signInThrough('corp', 'new-1');
    expect(page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(await usersCount()).toBe(before + 1);
    const user = await byName('newbie');
    expect(user).toMatchObject({ email: 'newbie@corp.example', emailVerified: true, name: 'New Bie' });
    expect(await identitiesOf(user.id)).toEqual([{ subject: 'new-1', provider_id: 'corp', email: 'newbie@corp.example' }]);
    const [session] = await server.deps.stores.loginSessions.listOfUser(user.id, new Date(0));
    expect(session).toMatchObject({
      amr: ['fed'],
      acr: server.config.authentication.acr.pwd,
      upstreamProviderId: 'corp',
      upstreamSubject: 'new-1',
    });
  });

  it('type oauth2: the code exchanged with PKCE, the claims read at its user endpoint and mapped (username from nickname)', async () => {
    const { page } = await signInThrough('plain', 'plain-1');
    expect(page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    const user = await byName('plainly');
    expect(user).toMatchObject({ email: 'plain@corp.example', name: 'Plain OAuth' });
    expect(await identitiesOf(user.id)).toEqual([{ subject: 'plain-1', provider_id: 'plain', email: 'plain@corp.example' }]);
  });

  it('links by verified email where the provider allows it, and a second upstream identity to the same user', async () => {
    const carol = await localUser('carol', 'carol@corp.example', 'Carol Local');
    const before = await usersCount();
    expect((await signInThrough('corp-link', 'carol-1')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect((await signInThrough('corp-link', 'carol-2')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(await usersCount()).toBe(before);
    expect((await identitiesOf(carol.id)).map(({ subject }) => subject)).toEqual(['carol-1', 'carol-2']);
  });

  it('without linkByVerifiedEmail, the local user proves the account with its password first; then the link holds and the claims refresh', async () => {
    const dave = await localUser('dave', 'dave@corp.example', 'Dave Local');
    const { browser, page } = await signInThrough('corp', 'dave-1');
    expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
    expect(page.body).toContain('An account here already uses dave@corp.example');
    const csrf = csrfOf(page);
    const wrong = await browser.submit(formAction(page), { _csrf: csrf, password: 'not the password' });
    expect(wrong.status).toBe(401);
    // The message is tied to the password field, which has the focus (accessibility audit c, finding 1).
    expect(wrong.body).toContain('<p class="error" role="alert" id="link_error">Wrong password for this account.</p>');
    expect(wrong.body).toMatch(
      /<input type="password" id="password" [^>]* required aria-invalid="true" aria-describedby="link_error" autofocus>/,
    );
    expect(await identitiesOf(dave.id)).toEqual([]);
    const right = await browser.submit(formAction(wrong), {
      _csrf: csrfOf(wrong),
      password: PASSWORD,
    });
    expect(right.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(await identitiesOf(dave.id)).toEqual([{ subject: 'dave-1', provider_id: 'corp', email: 'dave@corp.example' }]);
    expect((await byName('dave')).name).toBe('Dave Upstream');
    await server.deps.stores.userAdmin.updateClaims(dave.id, { name: 'Renamed Here' }, new Date());
    expect((await signInThrough('corp', 'dave-1')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect((await byName('dave')).name).toBe('Dave Upstream');
  });

  it('the proof of an account with a second step links the identity only once that step is passed too (the password alone links nothing)', async () => {
    const tina = await localUser('tina', 'tina@corp.example', 'Tina Local');
    await server.deps.stores.secondFactors.setPolicy(tina.id, 'required');
    const prove = async () => {
      const { browser, page } = await signInThrough('corp', 'tina-1');
      expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
      const step = await browser.submit(formAction(page), { _csrf: csrfOf(page), password: PASSWORD });
      expect(step.url).toBe(`${server.baseUrl}/login/second-factor`);
      return { browser, step };
    };
    // Whoever knows the password only stops at the second step: nothing is linked, and Cancel drops the proof.
    const stopped = await prove();
    expect(await identitiesOf(tina.id)).toEqual([]);
    await stopped.browser.submit(`${server.baseUrl}/login/second-factor/cancel`, { _csrf: csrfOf(stopped.step) });
    expect(await identitiesOf(tina.id)).toEqual([]);

    const { browser, step } = await prove();
    const code = await codeAt(secretOnPage(step.body), new Date());
    expect((await browser.submit(`${server.baseUrl}/login/second-factor/enrol`, { _csrf: csrfOf(step), code })).status).toBe(200);
    expect(await identitiesOf(tina.id)).toEqual([{ subject: 'tina-1', provider_id: 'corp', email: 'tina@corp.example' }]);
    const [latest] = await server.deps.stores.loginSessions.listOfUser(tina.id, new Date(0));
    expect(latest).toMatchObject({ amr: ['fed', 'otp'], upstreamProviderId: 'corp', upstreamSubject: 'tina-1' });
  });

  it('createUsers false: the link page offers no separate account, and a hand-made "new" is refused (no_user)', async () => {
    const frank = await localUser('frank', 'frank@corp.example', 'Frank Local');
    const { browser, page } = await signInThrough('corp-closed', 'frank-1');
    expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
    expect(page.body).not.toContain('value="new"');
    const before = await usersCount();
    const refused = await browser.submit(formAction(page), { _csrf: csrfOf(page), action: 'new' });
    expect(refused.status).toBe(403);
    expect(await usersCount()).toBe(before);
    expect(await identitiesOf(frank.id)).toEqual([]);
  });

  it("the proof of the local account by one of its passkeys (user verification required); another user's passkey proves nothing", async () => {
    const erin = await localUser('erin', 'erin@corp.example', 'Erin Local');
    const ceremony = { origin: server.baseUrl, rpId: '127.0.0.1' };
    /** Registers a passkey for `username` from /account, signed in with the password. */
    const passkeyOf = async (username: string) => {
      const authenticator = new SoftwareAuthenticator();
      const browser = fetchBrowser();
      const login = await browser.open(`${server.baseUrl}/login`);
      expect((await browser.submit(formAction(login), { _csrf: csrfOf(login), username, password: PASSWORD })).status).toBe(200);
      const csrf = csrfOf(await browser.open(`${server.baseUrl}/account`));
      const options = await browser.postJson(`${server.baseUrl}/account/passkeys/options`, {}, csrf);
      const response = authenticator.register(options.json as { challenge: string; user: { id: string } }, ceremony);
      expect((await browser.postJson(`${server.baseUrl}/account/passkeys`, { name: 'Key', response }, csrf)).status).toBe(201);
      return authenticator;
    };
    const erinsKey = await passkeyOf('erin');
    await localUser('mallory', 'mallory@corp.example', 'Mallory');
    const mallorysKey = await passkeyOf('mallory');

    const proveWith = async (authenticator: SoftwareAuthenticator) => {
      const { browser, page } = await signInThrough('corp', 'erin-1');
      expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
      const csrf = csrfOf(page);
      const options = await browser.postJson(`${server.baseUrl}/login/upstream/link/passkey/options`, {}, csrf);
      expect(options.json.userVerification).toBe('required');
      expect(options.json.allowCredentials).toEqual([expect.objectContaining({ id: erinsKey.id })]);
      const response = authenticator.assert(options.json as { challenge: string }, ceremony);
      return { browser, answer: await browser.postJson(`${server.baseUrl}/login/upstream/link/passkey`, { response }, csrf) };
    };
    const refused = await proveWith(mallorysKey);
    expect(refused.answer).toEqual({
      status: 401,
      json: { error: 'access_denied', error_description: 'This passkey cannot sign you in here.' },
    });
    expect(await identitiesOf(erin.id)).toEqual([]);

    const { browser, answer } = await proveWith(erinsKey);
    expect(answer).toEqual({ status: 200, json: { redirect: DEFAULT_AFTER_LOGIN } });
    expect(await identitiesOf(erin.id)).toEqual([{ subject: 'erin-1', provider_id: 'corp', email: 'erin@corp.example' }]);
    expect((await browser.open(`${server.baseUrl}/account`)).body).toContain('erin');
    const [session] = await server.deps.stores.loginSessions.listOfUser(erin.id, new Date(0));
    expect(session).toMatchObject({ upstreamProviderId: 'corp', upstreamSubject: 'erin-1' });
    expect(session!.amr).toEqual(expect.arrayContaining(['fed']));
  });

  it('a user name taken by someone else: the proof step offers a separate account, named with a suffix', async () => {
    await localUser('dup', 'dup@elsewhere.example', 'Local Dup');
    const { browser, page } = await signInThrough('corp', 'dup-1');
    expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
    // The match is the user name: the page names it, not the upstream's email, which no account here uses.
    expect(page.body).toContain('An account here already uses dup.');
    expect(page.body).not.toContain('someone@corp.example');
    const csrf = csrfOf(page);
    const created = await browser.submit(new URL('/login/upstream/link', server.baseUrl).href, { _csrf: csrf, action: 'new' });
    expect(created.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    const dup2 = await byName('dup-2');
    expect(dup2).toMatchObject({ email: 'someone@corp.example', emailVerified: false });
    expect((await identitiesOf(dup2.id)).map(({ subject }) => subject)).toEqual(['dup-1']);
  });

  it('GET /oauth/authorize with idp_hint goes straight to that provider, and back to the authorization request', async () => {
    const { application } = await createClient(server.deps, { redirectUri: 'https://client.example.com/callback', scopes: 'read' });
    const authorize = new URL('/oauth/authorize', server.baseUrl);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: application.uid,
      redirect_uri: 'https://client.example.com/callback',
      scope: 'read',
      state: 'xyz',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuKAgLNVw1c',
      code_challenge_method: 'S256',
      idp_hint: 'corp',
    }).toString();
    const browser = fetchBrowser();
    const login = await browser.open(authorize.href);
    expect(login.url.startsWith(`${upstream.issuer}/interaction/`)).toBe(true);
    const back = await signInAtUpstream(browser, login, 'new-1');
    expect(back.url.startsWith(`${server.baseUrl}/oauth/authorize?`)).toBe(true);
    expect(back.body).toContain('Client App');
  });

  it('a user whose mfa is required passes our second step after the upstream: amr fed and otp, the mfa acr', async () => {
    const newbie = await byName('newbie');
    await server.deps.stores.secondFactors.setPolicy(newbie.id, 'required');
    const sessionsBefore = (await server.deps.stores.loginSessions.listOfUser(newbie.id, new Date(0))).length;
    const { browser, page } = await signInThrough('corp', 'new-1');
    expect(page.url).toBe(`${server.baseUrl}/login/second-factor`);
    expect(await server.deps.stores.loginSessions.listOfUser(newbie.id, new Date(0))).toHaveLength(sessionsBefore);
    const code = await codeAt(secretOnPage(page.body), new Date());
    const csrf = csrfOf(page);
    expect((await browser.submit(`${server.baseUrl}/login/second-factor/enrol`, { _csrf: csrf, code })).status).toBe(200);
    const [latest] = await server.deps.stores.loginSessions.listOfUser(newbie.id, new Date(0));
    expect(latest).toMatchObject({ amr: ['fed', 'otp'], acr: server.config.authentication.acr.mfa, upstreamProviderId: 'corp' });
  });

  it('an unknown provider id is a 404 page, and 404 to HEAD; a known one is 405 to HEAD (its GET begins a sign-in)', async () => {
    const page = await fetchBrowser().open(`${server.baseUrl}/login/upstream/nobody`);
    expect(page.status).toBe(404);
    const head = async (path: string) => {
      const response = await fetch(`${server.baseUrl}${path}`, { method: 'HEAD', redirect: 'manual' });
      return { path, status: response.status, allow: response.headers.get('allow') };
    };
    expect(await Promise.all(['/login/upstream/nobody', '/login/upstream/nobody/callback'].map(head))).toEqual([
      { path: '/login/upstream/nobody', status: 404, allow: null },
      { path: '/login/upstream/nobody/callback', status: 404, allow: null },
    ]);
    expect(await head('/login/upstream/corp/callback')).toEqual({ path: '/login/upstream/corp/callback', status: 405, allow: 'GET' });
  });
});
