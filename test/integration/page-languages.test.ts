import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { authorizeUrl, createClient, createUser, csrfTokenIn, hiddenFields, PASSWORD, signedIn, userAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

// Issue 35 item 6: the end-user pages in the user's language, chosen by ui_locales (OpenID Connect Core 3.1.2.1),
// then Accept-Language, then defaultLocale.

const CALLBACK = 'https://client.example.com/callback';
const READ = { en: 'Read your data', de: 'Ihre Daten lesen', fr: 'Lire vos données' };

describe(`end-user pages in the user's language (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  beforeAll(async () => {
    server = await buildTestServer({ config: { scopeDescriptions: { read: READ } } });
    await createUser(server.deps, 'alice');
    client = (await createClient(server.deps, { name: 'Amazing Client App' })).application;
  });
  afterAll(() => server.close());

  const authorization = (parameters: Record<string, string> = {}) =>
    authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code', scope: 'read', ...parameters });

  it('ui_locales=de: the login page it sends the user to, its error, and the consent page after it are German', async () => {
    const agent = userAgent(server.app);
    const url = authorization({ ui_locales: 'se de-CH fr' });
    expect((await agent.request({ method: 'GET', url })).headers.location).toBe('/login');

    const login = await agent.request({ method: 'GET', url: '/login' });
    expect(login.body).toContain('<html lang="de" dir="ltr">');
    expect(login.body).toContain('<h1>Anmelden</h1>');
    expect(login.body).toContain('<label for="username">Benutzername</label>');
    const wrong = await agent.post('/login', { username: 'alice', password: 'wrong' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Benutzername oder Passwort ist falsch.');

    const signIn = await agent.post('/login', { username: 'alice', password: PASSWORD });
    expect(signIn.headers.location).toBe(url);
    const consent = await agent.request({ method: 'GET', url });
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('<html lang="de" dir="ltr">');
    expect(consent.body).toContain('<h1>Autorisierung erforderlich</h1>');
    expect(consent.body).toContain('<strong class="text-info">Amazing Client App</strong> erlauben, Ihr Konto zu verwenden?');
    expect(consent.body).toContain('<li>Ihre Daten lesen</li>');
    expect(consent.body).toContain('Angemeldet als <strong>alice</strong>.');
    // The consent form sends ui_locales again, so what answers it (an error page, a form_post page) stays German.
    expect(hiddenFields(consent.body, 0).ui_locales).toBe('se de-CH fr');
  });

  it('Accept-Language chooses French by q-value when no ui_locales is sent', async () => {
    const agent = await signedIn(server.app, 'alice');
    const headers = { 'accept-language': 'en;q=0.4, fr-CH, de;q=0.8' };
    const consent = await agent.request({ method: 'GET', url: authorization(), headers });
    expect(consent.body).toContain('<html lang="fr" dir="ltr">');
    expect(consent.body).toContain('<h1>Autorisation requise</h1>');
    expect(consent.body).toContain('<li>Lire vos données</li>');
    expect(consent.body).toContain('<button type="submit">Autoriser</button>');
    expect(hiddenFields(consent.body, 0).ui_locales).toBeUndefined();
    const login = await userAgent(server.app).request({ method: 'GET', url: '/login', headers });
    expect(login.body).toContain('<label for="password">Mot de passe</label>');
  });

  it('English without either, and a scope description without a text for the language falls back to the default one', async () => {
    const agent = await signedIn(server.app, 'alice');
    const consent = await agent.request({ method: 'GET', url: authorization() });
    expect(consent.body).toContain('<html lang="en" dir="ltr">');
    expect(consent.body).toContain('Authorize <strong class="text-info">Amazing Client App</strong> to use your account?');
    const spanish = await agent.request({ method: 'GET', url: authorization({ ui_locales: 'es' }) });
    expect(spanish.body).toContain('<h1>Se requiere autorización</h1>');
    // In English on a Spanish page, and marked so (WCAG 3.1.2), for a screen reader to speak it as English.
    expect(spanish.body).toContain('<li lang="en">Read your data</li>');
  });

  it('an unsupported ui_locales falls back to Accept-Language, then to the default', async () => {
    const agent = await signedIn(server.app, 'alice');
    const url = authorization({ ui_locales: 'se nb-NO' });
    const japanese = await agent.request({ method: 'GET', url, headers: { 'accept-language': 'ja' } });
    expect(japanese.body).toContain('<html lang="ja" dir="ltr">');
    expect(japanese.body).toContain('<button type="submit">許可</button>');
    const english = await agent.request({ method: 'GET', url });
    expect(english.body).toContain('<html lang="en" dir="ltr">');
  });

  it("an error page says the catalogue's own description in the page's language", async () => {
    const page = await server.app.inject({ method: 'GET', url: authorizeUrl({ client_id: 'nobody', ui_locales: 'ja' }) });
    expect(page.statusCode).toBe(401);
    expect(page.body).toContain('<html lang="ja" dir="ltr">');
    expect(page.body).toContain('<h1>エラーが発生しました</h1>');
    expect(page.body).toContain('<pre>クライアント認証に失敗しました。');

    const disabled = (await createClient(server.deps, { name: 'Retired App' })).application;
    await server.deps.stores.applicationAdmin.update(disabled.id, { disabledAt: new Date() });
    const url = authorizeUrl({ client_id: disabled.uid, redirect_uri: CALLBACK, response_type: 'code' });
    const german = await server.app.inject({ method: 'GET', url, headers: { 'accept-language': 'de' } });
    expect(german.statusCode).toBe(401);
    expect(german.body).toContain('<pre>Diese Anwendung wurde vom Administrator dieses Servers deaktiviert.</pre>');
    const badRedirect = await server.app.inject({
      method: 'GET',
      url: authorization({ redirect_uri: 'https://elsewhere.example/cb', ui_locales: 'fr' }),
    });
    expect(badRedirect.body).toContain(
      '<pre>L’URI de redirection demandée est mal formée ou ne correspond pas à l’URI de redirection du client.</pre>',
    );
  });

  it('the logout notice and the authorized applications page follow Accept-Language', async () => {
    const agent = await signedIn(server.app, 'alice');
    const headers = { 'accept-language': 'es' };
    const applications = await agent.request({ method: 'GET', url: '/oauth/authorized_applications', headers });
    expect(applications.body).toContain('<h1>Tus aplicaciones autorizadas</h1>');
    const _csrf = csrfTokenIn(applications.body)!;
    const out = await agent.request({ method: 'POST', url: '/logout', headers: { ...FORM, ...headers }, payload: form({ _csrf }) });
    expect(out.statusCode).toBe(303);
    const login = await agent.request({ method: 'GET', url: '/login', headers });
    expect(login.body).toContain('<p class="notice" role="status">Has cerrado la sesión.</p>');
  });

  it('discovery lists ui_locales_supported (RFC 8414 section 2)', async () => {
    const metadata = await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.json().ui_locales_supported).toEqual(['en', 'de', 'fr', 'es', 'ja']);
  });
});

describe(`defaultLocale (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { defaultLocale: 'es' } });
  });
  afterAll(() => server.close());

  it('is the language when neither ui_locales nor Accept-Language names a supported one', async () => {
    const page = await server.app.inject({ method: 'GET', url: '/login', headers: { 'accept-language': 'pt-BR, *;q=0.1' } });
    expect(page.body).toContain('<html lang="es" dir="ltr">');
    expect(page.body).toContain('<h1>Iniciar sesión</h1>');
    const english = await server.app.inject({ method: 'GET', url: '/login', headers: { 'accept-language': 'en-US' } });
    expect(english.body).toContain('<h1>Sign in</h1>');
  });
});
