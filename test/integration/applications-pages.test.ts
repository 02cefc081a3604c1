import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { createClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { form, FORM, type TestServer } from '../helpers/test-server.js';
import { ADMIN, AdminSession, buildAdminServer, expectNotFoundPages, textOf } from './applications-support.js';

describe(`/oauth/applications HTML pages (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer({ optionalScopes: ['write'] });
  });
  afterAll(() => server.close());

  it('GET /oauth/applications lists applications with their row ids, callback URLs and confidentiality', async () => {
    const confidential = await createClient(server.deps, { name: 'Oauth Dude', redirectUri: 'https://a.example/cb\nhttps://b.example/cb' });
    const publicClient = await createClient(server.deps, { name: 'Awesome App', confidential: false });
    const page = await new AdminSession(server.app).get('/oauth/applications');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<h1>Your applications</h1>');
    expect(page.body).toContain('New Application');
    expect(page.body).toMatch(
      /Name<\/th>\s*<th scope="col">Callback URL<\/th>\s*<th scope="col">Confidential\?<\/th>\s*<th scope="col">Actions/,
    );
    const row = new RegExp(`<tr id="application_${confidential.application.id}">[\\s\\S]*?</tr>`).exec(page.body)?.[0] ?? '';
    expect(row).toContain(`<a href="/oauth/applications/${confidential.application.id}">Oauth Dude</a>`);
    expect(row).toContain('https://a.example/cb');
    expect(row).toContain('https://b.example/cb');
    expect(row).toContain('<td>Yes</td>');
    expect(row).toContain(`href="/oauth/applications/${confidential.application.id}/edit">Edit</a>`);
    expect(row).toContain(`href="/oauth/applications/${confidential.application.id}/delete">Destroy</a>`);
    expect(page.body).toMatch(new RegExp(`<tr id="application_${publicClient.application.id}">[\\s\\S]*?<td>No</td>`));
  });

  it('GET /oauth/applications/new shows the reference form with a CSRF token', async () => {
    const page = await new AdminSession(server.app).get('/oauth/applications/new');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>New Application</h1>');
    expect(page.body).toMatch(/<input type="hidden" name="_csrf" value="[^"]+">/);
    expect(page.body).toMatch(/<input type="text" id="application_name" name="name" value="" required>/);
    expect(page.body).toContain('name="redirect_uri"');
    expect(page.body).toContain('Use one line per URI');
    expect(page.body).toContain('<input type="hidden" name="confidential" value="0">');
    expect(page.body).toMatch(/name="confidential" value="1"[^>]* checked>/);
    expect(page.body).toContain('Separate scopes with spaces. Leave blank to use the default scopes.');
    // Reference 7.1: authorization_code is enabled, so a blank redirect URI is not offered.
    expect(page.body).not.toContain('Leave it blank if you configured your provider to use Client Credentials');
  });

  it('POST /oauth/applications creates, says "Application created." and shows the plain secret exactly once', async () => {
    const admin = new AdminSession(server.app);
    const { id, show } = await admin.createThroughForm('applications', {
      name: 'My Application',
      redirect_uri: 'https://example.com/cb\r\nhttp://127.0.0.1:8080/cb',
      scopes: 'read write',
      confidential: ['0', '1'],
    });
    expect(show.statusCode).toBe(200);
    expect(show.body).toContain('Application created.');
    expect(show.body).toContain('<h1>Application: My Application</h1>');
    const application = (await server.deps.stores.applications.findById(id))!;
    expect(textOf(show.body, 'application_id')).toBe(application.uid);
    expect(textOf(show.body, 'scopes')).toBe('read write');
    expect(textOf(show.body, 'confidential')).toBe('true');
    const secret = textOf(show.body, 'secret')!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(application.secret).toBe(sha256Hex(secret));

    const again = await admin.get(`/oauth/applications/${id}`);
    expect(textOf(again.body, 'secret')).toBe('Secret hashed');
    expect(again.body).not.toContain(secret);
    expect(again.body).not.toContain('Application created.');
    for (const body of admin.bodies) expect(body).not.toContain(sha256Hex(secret));
  });

  it('a copy of the session cookie from before the secret was shown shows it no more', async () => {
    const admin = new AdminSession(server.app);
    await admin.get('/oauth/applications/new');
    const created = await admin.submit('/oauth/applications', { name: 'Replayed', redirect_uri: 'https://example.com/cb' });
    const copy = admin.cookie;
    const secret = textOf((await admin.follow(created)).body, 'secret')!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const replayed = await server.app.inject({
      method: 'GET',
      url: created.headers.location as string,
      headers: { ...ADMIN, cookie: copy! },
    });
    expect(replayed.statusCode).toBe(200);
    expect(replayed.body).not.toContain(secret);
    expect(textOf(replayed.body, 'secret')).toBe('Secret hashed');
  });

  it('GET /oauth/applications/:id links each callback URL to an authorization request', async () => {
    const client = await createClient(server.deps, { name: 'Linked', redirectUri: 'https://app.example/cb?x=1', scopes: 'read write' });
    const page = await new AdminSession(server.app).get(`/oauth/applications/${client.application.id}`);
    const expected = `/oauth/authorize?client_id=${encodeURIComponent(client.uid)}&amp;redirect_uri=${encodeURIComponent('https://app.example/cb?x=1')}&amp;response_type=code&amp;scope=read%20write`;
    expect(page.body).toContain(`href="${expected}"`);
    expect(page.body).toContain('>Authorize</a>');
  });

  it('a public client shows no secret and no rotate button', async () => {
    const client = await createClient(server.deps, { name: 'Public', confidential: false });
    const page = await new AdminSession(server.app).get(`/oauth/applications/${client.application.id}`);
    expect(textOf(page.body, 'secret')).toBe('None (public client)');
    expect(textOf(page.body, 'confidential')).toBe('false');
    expect(textOf(page.body, 'scopes')).toBe('Not defined');
    expect(page.body).not.toContain('Rotate secret');
  });

  it('GET /:id/edit and POST /:id with _method=patch update the application and say "Application updated."', async () => {
    const client = await createClient(server.deps, { name: 'OMG my app' });
    const admin = new AdminSession(server.app);
    const edit = await admin.get(`/oauth/applications/${client.application.id}/edit`);
    expect(edit.body).toContain('<h1>Edit application</h1>');
    expect(edit.body).toContain('value="OMG my app"');
    expect(edit.body).toContain('<input type="hidden" name="_method" value="patch">');
    const updated = await admin.submit(`/oauth/applications/${client.application.id}`, {
      _method: 'patch',
      name: 'Serious app',
      redirect_uri: 'https://serious.example/cb',
      scopes: 'write',
      confidential: '0',
    });
    expect(updated.statusCode).toBe(302);
    const show = await admin.follow(updated);
    expect(show.body).toContain('Application updated.');
    expect(show.body).toContain('Application: Serious app');
    expect(show.body).not.toContain('OMG my app');
    const stored = (await server.deps.stores.applications.findById(client.application.id))!;
    expect(stored).toMatchObject({
      name: 'Serious app',
      redirectUris: ['https://serious.example/cb'],
      scopes: ['write'],
      confidential: false,
    });
  });

  it('an application named <script>alert(1)</script> is shown as text on every page', async () => {
    const client = await createClient(server.deps, { name: '<script>alert(1)</script>' });
    const admin = new AdminSession(server.app);
    for (const url of [
      '/oauth/applications',
      `/oauth/applications/${client.application.id}`,
      `/oauth/applications/${client.application.id}/edit`,
      `/oauth/applications/${client.application.id}/delete`,
      `/oauth/applications/${client.application.id}/rotate_secret`,
    ]) {
      const page = await admin.get(url);
      expect(page.body, url).not.toContain('<script>alert(1)</script>');
      expect(page.body, url).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('every admin page forbids framing and caching', async () => {
    const page = await new AdminSession(server.app).get('/oauth/applications/new');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('an unknown or non-numeric id is a 404 page', async () => {
    const urls = [
      '/oauth/applications/999999',
      '/oauth/applications/abc',
      '/oauth/applications/1.5/edit',
      '/oauth/applications/999999/delete',
      '/oauth/applications/999999/rotate_secret',
    ];
    await expectNotFoundPages(new AdminSession(server.app), urls, 'There is no application with this id.');
  });

  it('a form POST without a CSRF token is refused with 403 and changes nothing', async () => {
    const client = await createClient(server.deps, { name: 'Keep me' });
    const admin = new AdminSession(server.app);
    await admin.get('/oauth/applications/new');
    const headers = { ...ADMIN, ...FORM, cookie: admin.cookie! };
    const attempts = [
      { url: '/oauth/applications', payload: form({ name: 'Sneaky', redirect_uri: 'https://x.example/cb' }) },
      { url: `/oauth/applications/${client.application.id}`, payload: form({ _method: 'delete' }) },
      { url: `/oauth/applications/${client.application.id}`, payload: form({ _method: 'patch', name: 'Renamed', _csrf: 'forged' }) },
      { url: `/oauth/applications/${client.application.id}/rotate_secret`, payload: '' },
    ];
    for (const { url, payload } of attempts) {
      const response = await server.app.inject({ method: 'POST', url, headers, payload });
      expect(response.statusCode, url).toBe(403);
      expect(response.body).toContain('This form has expired');
    }
    // The same forms from another site: no session cookie at all, only the browser's cached Basic credentials.
    const crossSite = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: { ...ADMIN, ...FORM },
      payload: form({ name: 'Sneaky' }),
    });
    expect(crossSite.statusCode).toBe(403);
    expect(await server.deps.stores.applications.findById(client.application.id)).toMatchObject({
      name: 'Keep me',
      secret: client.application.secret,
    });
    expect((await server.deps.stores.applicationAdmin.list()).map((a) => a.name)).not.toContain('Sneaky');
  });
});
