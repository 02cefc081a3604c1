import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex, storedForm } from '../../src/oauth/secrets.js';
import { createClient, createCode, createUser, issueToken } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { basicAuth, form, FORM, type TestServer } from '../helpers/test-server.js';
import { AdminSession, applicationIdFrom, buildAdminServer, textOf } from './applications-support.js';

describe(`/oauth/applications from creation to deletion in the HTML UI (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer();
  });
  afterAll(() => server.close());

  const clientCredentials = (uid: string, secret: string) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(uid, secret) },
      payload: form({ grant_type: 'client_credentials' }),
    });

  it('the secret shown once after create and after rotate works at POST /oauth/token, and is never shown again', async () => {
    const admin = new AdminSession(server.app);
    const created = await admin.submit('/oauth/applications', {
      name: 'Worker',
      redirect_uri: 'https://worker.example/cb',
      scopes: '',
      confidential: ['0', '1'],
    });
    const id = applicationIdFrom(created.headers.location);
    const shown = await admin.follow(created);
    const uid = textOf(shown.body, 'application_id')!;
    const firstSecret = textOf(shown.body, 'secret')!;
    expect(shown.body).toContain('Copy this secret now: it will not be shown again.');
    expect((await clientCredentials(uid, firstSecret)).statusCode).toBe(200);

    // The show page's button leads to a page that asks first; the secret still works until the form is sent.
    expect(shown.body).toContain(`<a class="button secondary" href="/oauth/applications/${id}/rotate_secret">Rotate secret</a>`);
    const asked = await admin.get(`/oauth/applications/${id}/rotate_secret`);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('<h1>Rotate the secret?</h1>');
    expect(asked.body).toContain('<strong>Worker</strong>');
    expect(asked.body).toContain(`<form method="post" action="/oauth/applications/${id}/rotate_secret">`);
    expect(asked.body).toContain(`<a class="button secondary" href="/oauth/applications/${id}">Cancel</a>`);
    expect((await clientCredentials(uid, firstSecret)).statusCode).toBe(200);

    const rotated = await admin.submit(`/oauth/applications/${id}/rotate_secret`, {});
    expect(rotated.statusCode).toBe(302);
    expect(rotated.headers.location).toBe(`/oauth/applications/${id}`);
    const afterRotate = await admin.follow(rotated);
    expect(afterRotate.body).toContain('Secret rotated.');
    const secondSecret = textOf(afterRotate.body, 'secret')!;
    expect(secondSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secondSecret).not.toBe(firstSecret);
    expect((await clientCredentials(uid, firstSecret)).statusCode).toBe(401);
    expect((await clientCredentials(uid, secondSecret)).statusCode).toBe(200);

    for (const url of [
      '/oauth/applications',
      `/oauth/applications/${id}`,
      `/oauth/applications/${id}/edit`,
      `/oauth/applications/${id}/delete`,
    ])
      await admin.get(url);
    expect(textOf(admin.bodies.at(-3)!, 'secret')).toBe('Secret hashed');
    for (const secret of [firstSecret, secondSecret]) {
      expect(admin.bodies.filter((body) => body.includes(secret))).toHaveLength(1);
      for (const body of admin.bodies) expect(body).not.toContain(sha256Hex(secret));
    }
  });

  it('turning a public client confidential in the edit form shows its new secret once', async () => {
    const client = await createClient(server.deps, { name: 'Going private', confidential: false });
    const admin = new AdminSession(server.app);
    const updated = await admin.submit(`/oauth/applications/${client.application.id}`, {
      _method: 'patch',
      name: 'Going private',
      redirect_uri: 'https://app.example/callback',
      scopes: '',
      confidential: ['0', '1'],
    });
    const show = await admin.follow(updated);
    const secret = textOf(show.body, 'secret')!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await clientCredentials(client.uid, secret)).statusCode).toBe(200);
  });

  it('Destroy asks first, then POST _method=delete deletes the application with its grants and tokens', async () => {
    const client = await createClient(server.deps, { name: 'Short-lived' });
    const user = await createUser(server.deps);
    const token = await issueToken(server.deps, { application: client.application, resourceOwnerId: user.id, withRefreshToken: true });
    const grant = await createCode(server.deps, { application: client.application, resourceOwnerId: user.id });
    const admin = new AdminSession(server.app);

    const confirm = await admin.get(`/oauth/applications/${client.application.id}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<h1>Are you sure?</h1>');
    expect(confirm.body).toContain(`<form method="post" action="/oauth/applications/${client.application.id}">`);
    expect(confirm.body).toContain('<input type="hidden" name="_method" value="delete">');
    expect(await server.deps.stores.applications.findById(client.application.id)).not.toBeNull();

    const deleted = await admin.submit(`/oauth/applications/${client.application.id}`, { _method: 'delete' });
    expect(deleted.statusCode).toBe(302);
    expect(deleted.headers.location).toBe('/oauth/applications');
    const index = await admin.follow(deleted);
    expect(index.body).toContain('Application deleted.');
    expect(index.body).not.toContain('Short-lived');

    expect(await server.deps.stores.applications.findById(client.application.id)).toBeNull();
    expect(await server.deps.stores.accessTokens.findByToken(storedForm(token.accessToken, true))).toBeNull();
    expect(await server.deps.stores.accessTokens.findByRefreshToken(storedForm(token.refreshToken!, true))).toBeNull();
    expect(await server.deps.stores.accessGrants.findByToken(storedForm(grant.code, true))).toBeNull();
    expect((await admin.get(`/oauth/applications/${client.application.id}`)).statusCode).toBe(404);
  });

  it('a notice is shown once', async () => {
    const client = await createClient(server.deps, { name: 'Noticed' });
    const admin = new AdminSession(server.app);
    const updated = await admin.submit(`/oauth/applications/${client.application.id}`, { _method: 'patch', name: 'Noticed again' });
    expect((await admin.follow(updated)).body).toContain('Application updated.');
    expect((await admin.get('/oauth/applications')).body).not.toContain('Application updated.');
  });
});
