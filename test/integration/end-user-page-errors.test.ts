import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, PASSWORD, signedIn, userAgent } from '../helpers/end-user.js';
import { codeAt, enrolFromAccount, secondStep, secretOnPage, storedPasskey } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Accessibility audit c, findings 1 and 3: an error the server renders is tied to the field(s) it concerns
// (aria-invalid, and aria-describedby naming the message, beside any hint already named), the focus goes where the
// person has to type next, and the account page's scrolling tables are regions named apart from their sections.
// The login and device pages are also checked in Chromium (test/browser/end-user-page-errors.test.ts).

/** The attributes of the page's <input> with this id. */
function inputAttributes(html: string, id: string): Record<string, string> {
  const tag = new RegExp(`<input [^>]*id="${id}"[^>]*>`).exec(html)?.[0];
  if (tag === undefined) throw new Error(`no input #${id} on the page: ${html.slice(0, 300)}`);
  return Object.fromEntries(
    [...tag.slice('<input'.length, -1).matchAll(/ ([\w-]+)(?:="([^"]*)")?/g)].map(([, name, value]) => [name!, value ?? '']),
  );
}

/** The text of the element with this id (an element holding text only, as the messages and hints are). */
const textOf = (html: string, id: string): string | null =>
  new RegExp(`<(\\w+) [^>]*id="${id}"[^>]*>([^<]*)</\\1>`).exec(html)?.[2] ?? null;

/** What a screen reader learns of a field: invalid or not, the texts its aria-describedby names, whether it has the focus. */
function field(html: string, id: string) {
  const input = inputAttributes(html, id);
  const describedBy = (input['aria-describedby'] ?? '').split(' ').filter((ref) => ref !== '');
  return {
    invalid: input['aria-invalid'] ?? null,
    describedBy: describedBy.map((ref) => textOf(html, ref)),
    autofocus: 'autofocus' in input,
  };
}

const autofocusCount = (html: string) => html.match(/ autofocus[ >]/g)?.length ?? 0;

const WRONG_CURRENT = 'Your current password is not correct.';

describe(`errors on the end-user pages point at their fields (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  it('login: without an error nothing is invalid and the user name has the focus', async () => {
    const page = await userAgent(server.app).request({ method: 'GET', url: '/login' });
    expect(field(page.body, 'username')).toEqual({ invalid: null, describedBy: [], autofocus: true });
    expect(field(page.body, 'password')).toEqual({ invalid: null, describedBy: [], autofocus: false });
  });

  it('login: a wrong password marks both fields, and the focus goes to the password when the user name is kept', async () => {
    const wrong = await userAgent(server.app).post('/login', { username: 'alice', password: 'not the password' });
    expect(wrong.statusCode).toBe(401);
    expect(textOf(wrong.body, 'login_error')).toBe('Invalid username or password.');
    expect(field(wrong.body, 'username')).toEqual({ invalid: 'true', describedBy: ['Invalid username or password.'], autofocus: false });
    expect(field(wrong.body, 'password')).toEqual({ invalid: 'true', describedBy: ['Invalid username or password.'], autofocus: true });
    expect(autofocusCount(wrong.body)).toBe(1);
  });

  it('login: with the user name blank the focus stays on it', async () => {
    const blank = await userAgent(server.app).post('/login', { username: ' ', password: '' });
    expect(blank.statusCode).toBe(400);
    expect(field(blank.body, 'username')).toEqual({ invalid: 'true', describedBy: ['Enter your username and password.'], autofocus: true });
    expect(field(blank.body, 'password')).toMatchObject({ invalid: 'true', autofocus: false });
    expect(autofocusCount(blank.body)).toBe(1);
  });

  it('second step: a wrong code marks the code field, its error named before its hint', async () => {
    await createUser(server.deps, 'tess');
    const { secret } = await enrolFromAccount(await signedIn(server.app, 'tess'), server.clock.now);
    server.clock.advance(30);
    const browser = userAgent(server.app);
    expect((await browser.post('/login', { username: 'tess', password: PASSWORD })).headers.location).toBe('/login/second-factor');
    const page = await browser.request({ method: 'GET', url: '/login/second-factor' });
    expect(field(page.body, 'code')).toMatchObject({ invalid: null, describedBy: [expect.stringContaining('authenticator app')] });
    const right = await codeAt(secret, server.clock.now);
    const wrong = await secondStep(browser, right === '000000' ? '999999' : '000000');
    expect(wrong.statusCode).toBe(401);
    expect(field(wrong.body, 'code')).toEqual({
      invalid: 'true',
      describedBy: ['That code is not valid. Each code works only once.', expect.stringContaining('authenticator app')],
      autofocus: true,
    });
    const blank = await secondStep(browser, ' ');
    expect(blank.statusCode).toBe(400);
    expect(field(blank.body, 'code').describedBy[0]).toBe('Enter a code.');
  });

  it("enrolment from the account page: the wrong current password marks that field, a wrong code the code's", async () => {
    await createUser(server.deps, 'enrico');
    const browser = await signedIn(server.app, 'enrico');
    const page = await browser.request({ method: 'GET', url: '/account/second-factor' });
    expect(field(page.body, 'current_password')).toEqual({ invalid: null, describedBy: [], autofocus: false });
    expect(field(page.body, 'code')).toEqual({ invalid: null, describedBy: [], autofocus: false });
    const right = await codeAt(secretOnPage(page.body), server.clock.now);

    const wrongPassword = await browser.post('/account/second-factor', { current: 'not it', code: right }, '/account/second-factor');
    expect(wrongPassword.statusCode).toBe(401);
    expect(field(wrongPassword.body, 'current_password')).toEqual({ invalid: 'true', describedBy: [WRONG_CURRENT], autofocus: true });
    expect(field(wrongPassword.body, 'code')).toEqual({ invalid: null, describedBy: [], autofocus: false });

    const wrongCode = await browser.post(
      '/account/second-factor',
      { current: PASSWORD, code: right === '000000' ? '999999' : '000000' },
      '/account/second-factor',
    );
    expect(wrongCode.statusCode).toBe(422);
    expect(field(wrongCode.body, 'current_password')).toEqual({ invalid: null, describedBy: [], autofocus: false });
    expect(field(wrongCode.body, 'code')).toEqual({
      invalid: 'true',
      describedBy: ['That code is not valid. Each code works only once.'],
      autofocus: true,
    });
    expect(autofocusCount(wrongCode.body)).toBe(1);
  });

  it('account page: a wrong current password is shown at its field, as a blank one is', async () => {
    await createUser(server.deps, 'forgetful');
    const browser = await signedIn(server.app, 'forgetful');
    const fields = { password: 'a brand new passphrase', confirmation: 'a brand new passphrase' };
    const wrong = await browser.post('/account/password', { current: 'not my password', ...fields }, '/account');
    expect(wrong.statusCode).toBe(401);
    expect(field(wrong.body, 'current_password')).toEqual({ invalid: 'true', describedBy: [WRONG_CURRENT], autofocus: false });
    expect(field(wrong.body, 'new_password')).toEqual({ invalid: null, describedBy: [], autofocus: false });
    expect(wrong.body.split(WRONG_CURRENT)).toHaveLength(2);
  });

  it("account page: each table's scrolling region has a name of its own, not its section's", async () => {
    const user = await createUser(server.deps, 'tabular');
    await server.deps.stores.passkeys.create(storedPasskey(user.id, 'cred-tabular', 'Laptop'), server.clock.now);
    await server.testDatabase.database.sql.query(
      'INSERT INTO oauth_federated_subjects (issuer, subject, user_id, created_at, email) VALUES ($1, $2, $3, now(), $4)',
      ['https://accounts.google.com', 'tabular-1', user.id, 'tabular@gmail.com'],
    );
    const page = await (await signedIn(server.app, 'tabular')).request({ method: 'GET', url: '/account' });
    const regions = [...page.body.matchAll(/<div class="table-scroll" ([^>]*)>/g)].map(([, attributes]) => attributes);
    expect(regions).toEqual([
      'role="region" aria-label="Passkeys table" tabindex="0"',
      'role="region" aria-label="Sign-in identities table" tabindex="0"',
      'role="region" aria-label="Sessions table" tabindex="0"',
    ]);
    // The sections keep their headings as names: every landmark's name differs.
    const names = [...page.body.matchAll(/<section aria-labelledby="(\w+)"/g)].map(([, id]) => textOf(page.body, id!));
    expect(new Set([...names, 'Passkeys table', 'Sign-in identities table', 'Sessions table']).size).toBe(names.length + 3);
  });
});
