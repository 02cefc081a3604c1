import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OOB_URI } from '../../src/oauth/authorization/redirect-uri.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { DEVICE_FLOW_CONFIG, deviceAuthorization, deviceClient } from '../helpers/device-flow.js';
import {
  authorizeUrl,
  CALLBACK,
  createClient,
  createUser,
  csrfTokenIn,
  hiddenFields,
  PASSWORD,
  signedIn,
  userAgent,
} from '../helpers/end-user.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { basicAuth, buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

// Issue 35 item 6: a request's ui_locales (OpenID Connect Core 3.1.2.1) carries to the pages of its own flow (the
// sign-in, the code page, the page after end_session) and to no other; every message of a translated page is
// translated, and the English error_description inside one is marked lang="en" (WCAG 3.1.2).

const GERMAN = { 'accept-language': 'de' };

describe(`ui_locales carries within its flow and no further (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let native: ApplicationRecord;
  beforeAll(async () => {
    server = await openIdServer();
    await createUser(server.deps, 'alice');
    client = (await createClient(server.deps)).application;
    native = (await createClient(server.deps, { redirectUri: OOB_URI })).application;
  });
  afterAll(() => server.close());

  const authorization = (parameters: Record<string, string> = {}) =>
    authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', ...parameters });

  it("an abandoned sign-in's ui_locales stays on the sign-in page, not on later consent, account or code pages", async () => {
    const agent = await signedIn(server.app, 'alice');
    const abandoned = await agent.request({ method: 'GET', url: authorization({ prompt: 'login', ui_locales: 'ja' }), headers: GERMAN });
    expect(abandoned.headers.location).toBe('/login');
    const login = await agent.request({ method: 'GET', url: '/login', headers: GERMAN });
    expect(login.body).toContain('<html lang="ja" dir="ltr">');

    const consent = await agent.request({ method: 'GET', url: authorization(), headers: GERMAN });
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('<html lang="de" dir="ltr">');
    const account = await agent.request({ method: 'GET', url: '/account', headers: GERMAN });
    expect(account.statusCode).toBe(200);
    expect(account.body).toContain('<html lang="de" dir="ltr">');
    const code = await agent.request({ method: 'GET', url: '/oauth/authorize/native?code=abc', headers: GERMAN });
    expect(code.body).toContain('<html lang="de" dir="ltr">');
  });

  it("a pushed request's ui_locales (RFC 9126: the link carries only its request_uri) chooses its sign-in and consent pages' language", async () => {
    const { application, plainSecret } = await createClient(server.deps);
    const pushed = await server.app.inject({
      method: 'POST',
      url: '/oauth/par',
      headers: { ...FORM, authorization: basicAuth(application.uid, plainSecret!) },
      payload: form({ client_id: application.uid, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', ui_locales: 'ja' }),
    });
    expect(pushed.statusCode, pushed.body).toBe(201);
    const url = authorizeUrl({ client_id: application.uid, request_uri: pushed.json().request_uri });
    const agent = userAgent(server.app);
    expect((await agent.request({ method: 'GET', url, headers: GERMAN })).headers.location).toBe('/login');
    const login = await agent.request({ method: 'GET', url: '/login', headers: GERMAN });
    expect(login.body).toContain('<html lang="ja" dir="ltr">');
    const signIn = await agent.request({
      method: 'POST',
      url: '/login',
      headers: { ...FORM, ...GERMAN },
      payload: form({ username: 'alice', password: PASSWORD, _csrf: csrfTokenIn(login.body)! }),
    });
    expect(signIn.headers.location).toBe(url);
    const consent = await agent.request({ method: 'GET', url, headers: GERMAN });
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('<html lang="ja" dir="ltr">');
    const approved = await agent.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { ...FORM, ...GERMAN },
      payload: form(hiddenFields(consent.body, 0)),
    });
    expect(approved.statusCode, approved.body).toBe(303);
    expect(new URL(String(approved.headers.location)).searchParams.get('code')).toBeTruthy();
    // Carried no further: the sign-in page of the next request, which names no language, is the browser's again.
    expect((await agent.request({ method: 'GET', url: authorization({ prompt: 'login' }), headers: GERMAN })).headers.location).toBe(
      '/login',
    );
    expect((await agent.request({ method: 'GET', url: '/login', headers: GERMAN })).body).toContain('<html lang="de" dir="ltr">');
  });

  it("the out-of-band code page speaks the authorization request's ui_locales", async () => {
    const agent = await signedIn(server.app, 'alice');
    const url = authorizeUrl({ client_id: native.uid, redirect_uri: OOB_URI, response_type: 'code', ui_locales: 'fr' });
    const consent = await agent.request({ method: 'GET', url, headers: GERMAN });
    expect(consent.body).toContain('<html lang="fr" dir="ltr">');
    const approved = await agent.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { ...FORM, ...GERMAN },
      payload: form(hiddenFields(consent.body, 0)),
    });
    expect(approved.statusCode).toBe(303);
    const location = String(approved.headers.location);
    expect(new URL(location, 'http://x').searchParams.get('ui_locales')).toBe('fr');
    const page = await agent.request({ method: 'GET', url: location, headers: GERMAN });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="fr" dir="ltr">');
    expect(page.body).toMatch(/<h1>Code d’autorisation\s:<\/h1>/u);
  });

  it('after end_session with ui_locales the sign-in page and its notice are in that language', async () => {
    const agent = await signedIn(server.app, 'alice');
    const page = await agent.request({ method: 'GET', url: `/oauth/end_session?${form({ ui_locales: 'ja' })}`, headers: GERMAN });
    expect(page.body).toContain('<html lang="ja" dir="ltr">');
    const fields = { ...hiddenFields(page.body), _csrf: csrfTokenIn(page.body)! };
    const confirmed = await agent.request({
      method: 'POST',
      url: '/oauth/end_session/confirm',
      headers: { ...FORM, ...GERMAN },
      payload: form(fields),
    });
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe('/login?ui_locales=ja');
    const login = await agent.request({ method: 'GET', url: String(confirmed.headers.location), headers: GERMAN });
    expect(login.body).toContain('<html lang="ja" dir="ltr">');
    expect(login.body).toContain('<p class="notice" role="status">サインアウトしました。</p>');
  });

  it('end_session without a session signs nobody out, so the sign-in page shows no notice', async () => {
    const agent = userAgent(server.app);
    const response = await agent.request({ method: 'GET', url: `/oauth/end_session?${form({ ui_locales: 'es' })}` });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login?ui_locales=es');
    const login = await agent.request({ method: 'GET', url: String(response.headers.location) });
    expect(login.body).toContain('<html lang="es" dir="ltr">');
    expect(login.body).not.toContain('class="notice"');
    expect(login.body).not.toContain('Has cerrado la sesión.');
  });

  it('an expired form is refused in the page language on a page, in English in JSON', async () => {
    const payload = form({ username: 'alice', password: 'wrong' });
    const page = await server.app.inject({
      method: 'POST',
      url: '/login',
      headers: { ...FORM, accept: 'text/html', 'accept-language': 'ja' },
      payload,
    });
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('<html lang="ja" dir="ltr">');
    expect(page.body).toContain('<pre>このフォームは期限切れか、このサイトから送信されたものではありません。');
    expect(page.body).not.toContain('This form has expired');
    // The passkey registration's JSON endpoint keeps the API's English.
    const agent = await signedIn(server.app, 'alice');
    const json = await agent.request({
      method: 'POST',
      url: '/account/passkeys/options',
      headers: { ...FORM, accept: 'application/json', 'accept-language': 'ja' },
      payload: '',
    });
    expect(json.statusCode).toBe(403);
    expect(json.json().error_description).toBe(
      'This form has expired or was not sent from this site. Go back, reload the page and try again.',
    );
  });

  it('the English error_description on a translated error page is marked lang="en"; an English page needs no mark', async () => {
    const missing = await server.app.inject({ method: 'GET', url: authorizeUrl({ ui_locales: 'ja' }) });
    expect(missing.body).toContain('<h1>エラーが発生しました</h1>');
    expect(missing.body).toMatch(/<pre lang="en">Missing required parameter: client_id\.?<\/pre>/);
    const notFound = await server.app.inject({ method: 'GET', url: '/x', headers: { accept: 'text/html', 'accept-language': 'ja' } });
    expect(notFound.body).toContain('<pre lang="en">No route for GET /x.</pre>');
    const english = await server.app.inject({ method: 'GET', url: '/x', headers: { accept: 'text/html', 'accept-language': 'en' } });
    expect(english.body).toContain('<pre>No route for GET /x.</pre>');
  });

  it("the passkey rename error page's way back and its own message are in the page language, unmarked", async () => {
    const agent = await signedIn(server.app, 'alice');
    const _csrf = await agent.csrfFrom('/oauth/authorized_applications');
    const headers = { ...FORM, 'accept-language': 'de' };
    const renamed = await agent.request({
      method: 'POST',
      url: '/account/passkeys/999/rename',
      headers,
      payload: form({ name: 'New', _csrf }),
    });
    expect(renamed.statusCode).toBe(404);
    expect(renamed.body).toContain('<a href="/account">Zurück zu Ihrem Konto</a>');
    expect(renamed.body).not.toContain('Back to your account');
    expect(renamed.body).toMatch(/<pre>[^<]+<\/pre>/);
  });
});

describe(`the device page's lockout in the page language (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { ...DEVICE_FLOW_CONFIG, rateLimit: { maxFailures: 1 } } });
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  it('says how long to wait in German, with Retry-After, and in English with the right plural', async () => {
    const client = await deviceClient(server.deps);
    const started = await deviceAuthorization(server.app, client);
    const alice = await signedIn(server.app, 'alice');
    const _csrf = await alice.csrfFrom('/device');
    const enter = (userCode: string, language: string) =>
      alice.request({
        method: 'POST',
        url: '/device',
        headers: { ...FORM, 'accept-language': language },
        payload: form({ user_code: userCode, _csrf }),
      });
    expect((await enter('BCDF-GHJK', 'de')).statusCode).toBe(400);
    const german = await enter(started.user_code, 'de');
    expect(german.statusCode).toBe(429);
    expect(Number(german.headers['retry-after'])).toBeGreaterThan(1);
    expect(german.body).toContain('<html lang="de" dir="ltr">');
    expect(german.body).toMatch(/Zu viele falsche Codes\. Versuchen Sie es in \d+ Sekunden erneut\./);
    const english = await enter(started.user_code, 'en');
    expect(english.statusCode).toBe(429);
    expect(english.body).toMatch(/Too many wrong codes\. Try again in \d+ seconds\./);
  });
});
