import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signedIn, userAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

// SPEC 3.6, pages usable without JavaScript: the account page's "Add a passkey" form is a POST (its CSRF token never
// goes into an address), and sent by the browser itself it registers nothing and says what a passkey needs.

const PATH = '/account/passkeys/without-javascript';

describe(`POST ${PATH} (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  it('the form posts here; the answer is the account page with a notice in the page language, and no passkey', async () => {
    const browser = await signedIn(server.app, 'alice');
    const account = await browser.request({ method: 'GET', url: '/account' });
    expect(account.body).toContain(`<form id="passkey_register" method="post" action="${PATH}">`);

    const _csrf = await browser.csrfFrom('/account');
    const sent = await browser.request({
      method: 'POST',
      url: PATH,
      headers: { ...FORM, 'accept-language': 'de' },
      payload: form({ _csrf, name: 'Laptop' }),
    });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe('/account');
    const page = await browser.request({ method: 'GET', url: '/account', headers: { 'accept-language': 'de' } });
    expect(page.body).toContain('Zum Hinzufügen eines Passkeys sind JavaScript und ein Browser nötig, der Passkeys erstellen kann.');
    expect(page.body).toContain('id="no_passkeys"');
  });

  it('without the CSRF token it is the "form expired" page; signed out, it is 401 "log in first"', async () => {
    const browser = await signedIn(server.app, 'alice');
    const forged = await browser.request({ method: 'POST', url: PATH, headers: FORM, payload: form({ name: 'Laptop' }) });
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['content-type']).toBe('text/html; charset=utf-8');

    const stranger = userAgent(server.app);
    const signedOut = await stranger.post(PATH, { name: 'Laptop' });
    expect(signedOut.statusCode).toBe(401);
    expect(signedOut.body).toContain('You need to log in first.');
  });
});
