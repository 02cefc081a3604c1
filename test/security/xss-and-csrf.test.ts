import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, createUser, hiddenFields, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { issueToken } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';
import { ADMIN, AdminSession, JSON_API } from '../integration/applications-support.js';
import { securityServer } from './support.js';

// Cross-site scripting (RFC 6749 section 10.14 and SPEC 3.6: "all output is escaped") through the values an
// admin or a client registers, and CSRF (RFC 6749 section 10.12, RFC 9700 section 4.7) on the consent and admin
// forms. Forms without a token or with a forged one are in authorize-consent.test.ts, applications-pages.test.ts
// and authorized-applications.test.ts; here a token from another session, which is valid, but not this one's.

const NAME = `<img src=x onerror=alert(1)>"'&<script>alert(2)</script>`;
// The quote is the only markup character RFC 3986 lets into a URI (sub-delims); "<" and '"' are refused at registration.
const REDIRECT = "https://app.example.com/cb?a='-alert(1)-'&b=1";

describe(`RFC 6749 sections 10.12 and 10.14: XSS through application names and redirect URIs, CSRF across sessions (${backend})`, () => {
  let server: TestServer;
  let agent: UserAgent;
  let id: number;
  let uid: string;

  beforeAll(async () => {
    server = await securityServer();
    const userId = (await createUser(server.deps, 'alice')).id;
    const created = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_API,
      payload: { name: NAME, redirect_uri: REDIRECT },
    });
    expect(created.statusCode).toBe(201);
    ({ id, uid } = created.json() as { id: number; uid: string });
    const application = (await server.deps.stores.applications.findById(id))!;
    // Another scope than the consent below asks for, so that consent is not skipped (SPEC 5 skipAuthorization).
    await issueToken(server.deps, { application, resourceOwnerId: userId, scopes: ['listed'] });
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  function expectEscaped(label: string, body: string) {
    expect(body, label).not.toContain('<img src=x');
    expect(body, label).not.toContain('<script>alert(2)');
    expect(body, label).not.toContain("'-alert(1)-'");
  }

  it('an application name and redirect URI with markup are escaped on every admin page', async () => {
    for (const path of ['', `/${id}`, `/${id}/edit`, `/${id}/delete`]) {
      const page = await server.app.inject({ method: 'GET', url: `/oauth/applications${path}`, headers: ADMIN });
      expect(page.statusCode, path).toBe(200);
      expectEscaped(path, page.body);
    }
    const show = await server.app.inject({ method: 'GET', url: `/oauth/applications/${id}`, headers: ADMIN });
    expect(show.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(show.body).toContain('&#39;-alert(1)-&#39;');
  });

  it('they are escaped on the consent page, the form_post page and the authorized applications', async () => {
    const request = { client_id: uid, redirect_uri: REDIRECT, response_type: 'code', response_mode: 'form_post' };
    const consent = await agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(consent.statusCode).toBe(200);
    expectEscaped('consent', consent.body);
    expect(hiddenFields(consent.body, 0).redirect_uri).toBe(REDIRECT);
    const formPost = await agent.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: FORM,
      payload: form(hiddenFields(consent.body, 0)),
    });
    expect(formPost.statusCode).toBe(200);
    expectEscaped('form_post', formPost.body);
    expect(formPost.body).toContain('action="https://app.example.com/cb?a=&#39;-alert(1)-&#39;&amp;b=1"');
    const authorized = await agent.request({ method: 'GET', url: '/oauth/authorized_applications' });
    expectEscaped('authorized applications', authorized.body);
    expect(authorized.body).toContain('&lt;img src=x');
  });

  it('what was typed is escaped when a form is shown again: admin validation errors and a failed login', async () => {
    const typed = '"><script>alert(3)</script>';
    const admin = new AdminSession(server.app);
    const invalid = await admin.submit('/oauth/applications', { name: typed, redirect_uri: `https://x.example/${typed}`, scopes: typed });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.body).not.toContain('<script>alert(3)');
    const login = await userAgent(server.app).post('/login', { username: typed, password: 'x' });
    expect(login.statusCode).toBe(401);
    expect(login.body).not.toContain('<script>alert(3)');
  });

  it('RFC 6749 section 10.12: the admin CSRF token of another admin session is refused with 403 and changes nothing', async () => {
    const victim = new AdminSession(server.app);
    const attacker = new AdminSession(server.app);
    await victim.get('/oauth/applications/new');
    await attacker.get('/oauth/applications/new');
    const before = await server.deps.stores.applications.findById(id);
    const headers = { ...ADMIN, ...FORM, cookie: victim.cookie! };
    const forged = (url: string, fields: Record<string, string>) =>
      server.app.inject({ method: 'POST', url, headers, payload: form({ ...fields, _csrf: attacker.csrfToken! }) });
    for (const [url, fields] of [
      ['/oauth/applications', { name: 'Planted', redirect_uri: 'https://evil.example/cb' }],
      [`/oauth/applications/${id}`, { _method: 'patch', redirect_uri: 'https://evil.example/cb' }],
      [`/oauth/applications/${id}/rotate_secret`, {}],
      [`/oauth/applications/${id}`, { _method: 'delete' }],
    ] as const) {
      expect((await forged(url, fields)).statusCode, url).toBe(403);
    }
    expect(await server.deps.stores.applications.findById(id)).toEqual(before);
    expect((await server.deps.stores.applicationAdmin.list()).map((application) => application.name)).not.toContain('Planted');
  });

  it("RFC 9700 section 4.7: the consent and revoke forms refuse the CSRF token of another user's session", async () => {
    await createUser(server.deps, 'mallory');
    const mallory = await signedIn(server.app, 'mallory');
    const consent = await mallory.request({
      method: 'GET',
      url: authorizeUrl({ client_id: uid, redirect_uri: REDIRECT, response_type: 'code' }),
    });
    const malloryToken = hiddenFields(consent.body, 0)._csrf!;
    const approve = await agent.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: FORM,
      payload: form({ ...hiddenFields(consent.body, 0), _csrf: malloryToken }),
    });
    expect(approve.statusCode).toBe(403);
    expect(approve.headers.location).toBeUndefined();
    const revoke = await agent.request({
      method: 'POST',
      url: `/oauth/authorized_applications/${id}`,
      headers: FORM,
      payload: form({ _method: 'delete', _csrf: malloryToken }),
    });
    expect(revoke.statusCode).toBe(403);
    expect((await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).body).toContain('&lt;img src=x');
  });
});
