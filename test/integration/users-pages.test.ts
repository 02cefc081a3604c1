import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userAgent } from '../helpers/end-user.js';
import { createUser } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { form, FORM, type TestServer } from '../helpers/test-server.js';
import {
  ADMIN,
  AdminSession,
  buildAdminServer,
  expectAdminSection,
  expectFormWithErrors,
  expectNotFoundPages,
  textOf,
} from './applications-support.js';

// The admin's Users section (issue 16): list and search, create with claims, show, edit, reset password,
// delete; CSRF on every form, validation errors re-rendered with what was typed, every value escaped.

describe(`/oauth/users HTML pages (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer();
  });
  afterAll(() => server.close());

  it('requires the admin: no credentials is 401, and the applications pages link to Users', async () => {
    await expectAdminSection(server.app, '/oauth/users', 'Users');
  });

  it('a script asking for JSON gets a refusal as JSON (a missing CSRF token, no credentials), never "[object Object]"', async () => {
    const json = { accept: 'application/json', 'content-type': 'application/json' };
    const forged = await server.app.inject({
      method: 'POST',
      url: '/oauth/users',
      headers: { ...ADMIN, ...json },
      payload: { username: 'x' },
    });
    expect({ status: forged.statusCode, error: forged.json().error }).toEqual({ status: 403, error: 'forbidden' });
    const anonymous = await server.app.inject({ method: 'GET', url: '/oauth/users', headers: { accept: 'application/json' } });
    expect({ status: anonymous.statusCode, error: anonymous.json().error }).toEqual({ status: 401, error: 'unauthorized' });
  });

  it('POST /oauth/users creates a user with claims; the show page lists them; the password is hashed and never shown', async () => {
    const admin = new AdminSession(server.app);
    await admin.get('/oauth/users/new');
    const { id, show } = await admin.createThroughForm('users', {
      username: 'alice',
      password: 'a long enough password',
      name: 'Alice Liddell',
      email: 'alice@example.com',
      email_verified: ['0', '1'],
      phone_number_verified: '0',
      locale: 'en-GB',
      address_locality: 'Oxford',
      address_country: '',
    });
    expect(show.body).toContain('User created.');
    expect(show.body).toContain('<h1>User: alice</h1>');
    const stored = (await server.deps.stores.users.findById(id))!;
    expect(textOf(show.body, 'user_subject')).toBe(stored.subject);
    expect(textOf(show.body, 'claim_email')).toBe('alice@example.com');
    expect(textOf(show.body, 'claim_email_verified')).toBe('Yes');
    expect(textOf(show.body, 'claim_address_locality')).toBe('Oxford');
    expect(show.body).not.toContain('claim_address_country');
    expect(stored).toMatchObject({ name: 'Alice Liddell', emailVerified: true, phoneNumberVerified: false, locale: 'en-GB' });
    expect(JSON.parse(stored.address!)).toEqual({ locality: 'Oxford' });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    for (const body of admin.bodies) {
      expect(body).not.toContain('a long enough password');
      expect(body).not.toContain(stored.passwordHash);
    }
  });

  it('a checkbox sent as another text ("maybe") is refused (400), never read as No', async () => {
    const admin = new AdminSession(server.app);
    await admin.get('/oauth/users/new');
    const response = await admin.submit('/oauth/users', { username: 'maybe', password: 'a long enough password', email_verified: 'maybe' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain(
      'email_verified must be one of &quot;0&quot;, &quot;1&quot;, &quot;false&quot;, &quot;true&quot;, &quot;off&quot;, &quot;on&quot; or a list of those.',
    );
    expect(await server.deps.stores.users.findByUsername('maybe')).toBeNull();
  });

  it('a form with errors is 422 with each message beside its field, keeps what was typed but never the password', async () => {
    await createUser(server.deps, 'taken');
    const admin = new AdminSession(server.app);
    const page = await admin.submitNew('/oauth/users', {
      username: 'taken',
      password: 'secret password 1',
      email: 'not an email',
      website: 'javascript:alert(1)',
      birthdate: '1990-02-30',
      zoneinfo: 'Mars/Base',
    });
    expectFormWithErrors(page);
    expect(textOf(page.body, 'user_email_errors')).toBe('Must be an email address, such as alice@example.com');
    expect(textOf(page.body, 'user_website_errors')).toBe('Must be an absolute https or http URL');
    expect(textOf(page.body, 'user_birthdate_errors')).toContain('Must be YYYY or YYYY-MM-DD');
    expect(textOf(page.body, 'user_zoneinfo_errors')).toContain('Must be a time zone of the IANA database');
    expect(page.body).toContain('value="not an email"');
    expect(page.body).toContain('name="password" value=""');
    expect(page.body).not.toContain('secret password 1');

    const taken = await admin.submit('/oauth/users', { username: 'taken', password: 'secret password 1', name: 'Other' });
    expect(taken.statusCode).toBe(422);
    expect(textOf(taken.body, 'user_username_errors')).toBe('Has already been taken');
    expect(taken.body).toContain('value="Other"');

    const short = await admin.submit('/oauth/users', { username: 'newbie', password: 'short' });
    expect(short.statusCode).toBe(422);
    expect(textOf(short.body, 'user_password_errors')).toBe('Is too short (minimum is 8 characters, it has 5)');
    expect(short.body).toContain('value="newbie"');
    expect(await server.deps.stores.users.findByUsername('newbie')).toBeNull();
  });

  it('GET /oauth/users?q= searches username, name and email in any case', async () => {
    await server.deps.stores.userAdmin.create({ username: 'bob', passwordHash: 'x', name: 'Robert Smith', email: 'BOB@corp.example' });
    await server.deps.stores.userAdmin.create({ username: 'carol', passwordHash: 'x', email: 'carol@home.example' });
    const admin = new AdminSession(server.app);
    const rows = async (q: string) => {
      const page = await admin.get(`/oauth/users?q=${encodeURIComponent(q)}`);
      expect(page.statusCode).toBe(200);
      return [...page.body.matchAll(/<tr id="user_\d+">\s*<td[^>]*><a href="[^"]+">([^<]+)<\/a>/g)].map((match) => match[1]);
    };
    expect(await rows('robert')).toEqual(['bob']);
    expect(await rows('CORP')).toEqual(['bob']);
    expect(await rows('carol@')).toEqual(['carol']);
    expect(await rows('')).toEqual(expect.arrayContaining(['alice', 'bob', 'carol']));
    const none = await admin.get('/oauth/users?q=nobody-at-all');
    expect(none.body).toContain('No user matches this search.');
    expect(none.body).toContain('value="nobody-at-all"');
  });

  it('editing claims changes only them; an emptied field clears its claim; updated_at moves', async () => {
    const user = await server.deps.stores.userAdmin.create({ username: 'dave', passwordHash: 'x', nickname: 'D', email: 'd@x.example' });
    const admin = new AdminSession(server.app);
    const edit = await admin.get(`/oauth/users/${user.id}/edit`);
    expect(edit.body).toContain('<h1>Edit dave</h1>');
    expect(edit.body).toContain('value="d@x.example"');
    expect(edit.body).not.toContain('name="username"');
    const updated = await admin.submit(`/oauth/users/${user.id}`, {
      _method: 'patch',
      nickname: '',
      given_name: 'David',
      email: 'd@x.example',
      address_street_address: '1 Main St\r\nFlat 2',
    });
    expect(updated.statusCode).toBe(302);
    expect((await admin.follow(updated)).body).toContain('User updated.');
    const stored = (await server.deps.stores.users.findById(user.id))!;
    expect(stored).toMatchObject({ username: 'dave', nickname: null, givenName: 'David', email: 'd@x.example' });
    expect(JSON.parse(stored.address!)).toEqual({ street_address: '1 Main St\r\nFlat 2' });
    expect(stored.profileUpdatedAt.getTime()).toBeGreaterThanOrEqual(user.profileUpdatedAt.getTime());

    const invalid = await admin.submit(`/oauth/users/${user.id}`, { _method: 'patch', picture: '/relative.png' });
    expect(invalid.statusCode).toBe(422);
    expect(textOf(invalid.body, 'user_picture_errors')).toBe('Must be an absolute https or http URL');
  });

  it('reset password: too short is 422; then the new password works at /login and the old one does not, and the sign-ins made with it end', async () => {
    const user = await createUser(server.deps, 'erin', 'the old password');
    const browser = userAgent(server.app);
    expect((await browser.post('/login', { username: 'erin', password: 'the old password' })).statusCode).toBe(303);
    expect((await browser.request({ method: 'GET', url: '/account' })).statusCode).toBe(200);
    const admin = new AdminSession(server.app);
    await admin.get(`/oauth/users/${user.id}/password`);
    const short = await admin.submit(`/oauth/users/${user.id}/password`, { password: 'tiny' });
    expect(short.statusCode).toBe(422);
    expect(short.body).not.toContain('tiny');
    // /login and the password grant take at most 1,024 characters: a longer password could never be used.
    const long = await admin.submit(`/oauth/users/${user.id}/password`, { password: 'x'.repeat(1025) });
    expect(long.statusCode).toBe(422);
    expect(textOf(long.body, 'user_password_errors')).toBe('Is too long (maximum is 1024 characters, it has 1025)');
    // Refused resets changed nothing: the browser is still signed in.
    expect((await browser.request({ method: 'GET', url: '/account' })).statusCode).toBe(200);
    const changed = await admin.submit(`/oauth/users/${user.id}/password`, { password: 'the new password' });
    expect(changed.statusCode).toBe(302);
    expect((await admin.follow(changed)).body).toContain('Password changed, and every sign-in of the user ended.');
    expect((await browser.request({ method: 'GET', url: '/account' })).headers.location).toBe('/login');
    const stored = (await server.deps.stores.users.findById(user.id))!;
    expect(await server.deps.passwords.verify(stored.passwordHash, 'the new password')).toBe(true);
    expect(await server.deps.passwords.verify(stored.passwordHash, 'the old password')).toBe(false);
  });

  it('delete asks first, then deletes the user', async () => {
    const user = await createUser(server.deps, 'frank');
    const admin = new AdminSession(server.app);
    const confirm = await admin.get(`/oauth/users/${user.id}/delete`);
    expect(confirm.body).toContain('Delete the user <strong>frank</strong>?');
    const deleted = await admin.submit(`/oauth/users/${user.id}`, { _method: 'delete' });
    expect(deleted.headers.location).toBe('/oauth/users');
    expect((await admin.follow(deleted)).body).toContain('User deleted after revoking 0 tokens and 0 grants.');
    expect(await server.deps.stores.users.findById(user.id)).toBeNull();
  });

  it('an unknown or non-numeric id is a 404 page', async () => {
    const urls = ['/oauth/users/999999', '/oauth/users/abc', '/oauth/users/1.5/edit', '/oauth/users/999999/password'];
    await expectNotFoundPages(new AdminSession(server.app), urls, 'There is no user with this id.');
  });

  it('every form POST without the CSRF token is refused with 403 and changes nothing', async () => {
    const user = await createUser(server.deps, 'grace');
    const admin = new AdminSession(server.app);
    await admin.get('/oauth/users/new');
    const headers = { ...ADMIN, ...FORM, cookie: admin.cookie! };
    const attempts = [
      { url: '/oauth/users', payload: form({ username: 'sneaky', password: 'sneaky password' }) },
      { url: `/oauth/users/${user.id}`, payload: form({ _method: 'patch', name: 'Renamed', _csrf: 'forged' }) },
      { url: `/oauth/users/${user.id}`, payload: form({ _method: 'delete' }) },
      { url: `/oauth/users/${user.id}/password`, payload: form({ password: 'a new password' }) },
      { url: `/oauth/users/${user.id}/disable`, payload: '' },
      { url: `/oauth/users/${user.id}/revoke_tokens`, payload: '' },
    ];
    for (const { url, payload } of attempts) {
      const response = await server.app.inject({ method: 'POST', url, headers, payload });
      expect(response.statusCode, url).toBe(403);
    }
    // From another site: the browser's cached Basic credentials but no session cookie.
    const crossSite = await server.app.inject({ method: 'POST', url: `/oauth/users/${user.id}/disable`, headers: { ...ADMIN, ...FORM } });
    expect(crossSite.statusCode).toBe(403);
    const stored = (await server.deps.stores.users.findById(user.id))!;
    expect(stored).toMatchObject({ name: null, disabledAt: null, passwordHash: user.passwordHash });
    expect(await server.deps.stores.users.findByUsername('sneaky')).toBeNull();
  });

  it('claims full of markup are shown as text on every page', async () => {
    const payload = '<script>window.__xss=1</script>';
    const user = await server.deps.stores.userAdmin.create({
      username: `x${payload}`,
      passwordHash: 'x',
      name: payload,
      nickname: `"><img src=x>`,
    });
    const admin = new AdminSession(server.app);
    for (const url of [
      '/oauth/users',
      `/oauth/users/${user.id}`,
      `/oauth/users/${user.id}/edit`,
      `/oauth/users/${user.id}/delete`,
      `/oauth/users/${user.id}/password`,
    ]) {
      const page = await admin.get(url);
      expect(page.body, url).not.toContain(payload);
      expect(page.body, url).not.toContain('<img src=x>');
      expect(page.body, url).toContain('&lt;script&gt;');
    }
  });
});
