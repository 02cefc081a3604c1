import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import {
  AdminSession,
  applicationIdFrom,
  buildAdminServer,
  buildOpenIdAdminServer,
  JSON_API,
  JSON_BODY,
  textOf,
} from './applications-support.js';

// Issue 16's per-application settings (OpenID Connect Registration 1.0 section 2): post_logout_redirect_uris,
// id_token_signed_response_alg and userinfo_signed_response_alg, through the admin pages and the JSON API.

const BASE = { name: 'Relying party', redirect_uri: 'https://rp.example/cb' };

// Each rule as the form prints it beside its field; the JSON API reports the same sentence after the field's label.
const LABELS = {
  post_logout_redirect_uris: 'Post-logout redirect URI',
  id_token_signed_response_alg: 'ID token signing algorithm',
  userinfo_signed_response_alg: 'UserInfo signing algorithm',
};

function refused(rule: string, setting: keyof typeof LABELS, value: unknown, field: string) {
  const json = `${LABELS[setting]} ${field[0]!.toLowerCase()}${field.slice(1)}`;
  return { rule, payload: { [setting]: value }, json, field, id: `application_${setting}_errors` };
}

const invalid = [
  refused(
    'a fragment in a post-logout redirect URI',
    'post_logout_redirect_uris',
    ['https://rp.example/bye#top'],
    'Cannot contain a fragment.',
  ),
  refused('a relative post-logout redirect URI', 'post_logout_redirect_uris', ['/bye'], 'Must be an absolute URI.'),
  refused(
    'an http post-logout redirect URI that is not loopback while forceSslInRedirectUri is on',
    'post_logout_redirect_uris',
    ['http://rp.example/bye'],
    'Must be an HTTPS/SSL URI.',
  ),
  refused(
    'a javascript: post-logout redirect URI',
    'post_logout_redirect_uris',
    ['javascript://rp.example/%0Aalert(1)'],
    'Is forbidden by the server.',
  ),
  refused(
    'an out-of-band post-logout redirect URI',
    'post_logout_redirect_uris',
    ['urn:ietf:wg:oauth:2.0:oob'],
    'Cannot be an out-of-band URI.',
  ),
  refused(
    'an ID token algorithm the server does not sign with',
    'id_token_signed_response_alg',
    'HS256',
    'Must be RS256, ES256 or EdDSA, not "HS256" (leave it blank for RS256).',
  ),
  refused(
    'an unsigned ID token (alg none)',
    'id_token_signed_response_alg',
    'none',
    'Must be RS256, ES256 or EdDSA, not "none" (leave it blank for RS256).',
  ),
  refused(
    'a UserInfo algorithm in the wrong case (JOSE names are case-sensitive)',
    'userinfo_signed_response_alg',
    'rs256',
    'Must be RS256, ES256 or EdDSA, not "rs256" (leave it blank for plain JSON).',
  ),
];

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

describe(`/oauth/applications OpenID Connect settings (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer();
  });
  afterAll(() => server.close());

  const postJson = (payload: object) =>
    server.app.inject({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: { ...BASE, ...payload } });
  const patchJson = (id: number, payload: object) =>
    server.app.inject({ method: 'PATCH', url: `/oauth/applications/${id}`, headers: JSON_BODY, payload });

  it('JSON: an application without them answers [] and null (RS256 ID tokens, plain JSON UserInfo)', async () => {
    const response = await postJson({});
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      post_logout_redirect_uris: [],
      id_token_signed_response_alg: null,
      userinfo_signed_response_alg: null,
    });
  });

  it('JSON: create, show, list and PATCH round-trip the three settings; what a PATCH leaves out stays', async () => {
    const created = await postJson({
      post_logout_redirect_uris: ['https://rp.example/bye', 'http://127.0.0.1:8080/bye', 'com.example.app:/bye'],
      id_token_signed_response_alg: 'ES256',
      userinfo_signed_response_alg: 'EdDSA',
    });
    expect(created.statusCode).toBe(201);
    const settings = {
      post_logout_redirect_uris: ['https://rp.example/bye', 'http://127.0.0.1:8080/bye', 'com.example.app:/bye'],
      id_token_signed_response_alg: 'ES256',
      userinfo_signed_response_alg: 'EdDSA',
    };
    expect(created.json()).toMatchObject(settings);
    const { id } = created.json();
    const stored = await server.deps.stores.applications.findById(id);
    expect(stored).toMatchObject({
      postLogoutRedirectUris: settings.post_logout_redirect_uris,
      idTokenSignedResponseAlg: 'ES256',
      userinfoSignedResponseAlg: 'EdDSA',
    });

    const shown = await server.app.inject({ method: 'GET', url: `/oauth/applications/${id}`, headers: JSON_API });
    expect(shown.json()).toMatchObject(settings);
    const listed = await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: JSON_API });
    expect(listed.json().find((application: { id: number }) => application.id === id)).toMatchObject(settings);

    // Like redirect_uri, a newline-separated string is accepted; a name-only PATCH keeps the settings.
    expect((await patchJson(id, { name: 'Renamed' })).json()).toMatchObject({ name: 'Renamed', ...settings });
    const changed = await patchJson(id, {
      post_logout_redirect_uris: 'https://rp.example/a\nhttps://rp.example/b',
      userinfo_signed_response_alg: 'RS256',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      post_logout_redirect_uris: ['https://rp.example/a', 'https://rp.example/b'],
      id_token_signed_response_alg: 'ES256',
      userinfo_signed_response_alg: 'RS256',
    });

    // null (or "") and [] clear them back to the defaults.
    const cleared = await patchJson(id, {
      post_logout_redirect_uris: [],
      id_token_signed_response_alg: null,
      userinfo_signed_response_alg: '',
    });
    expect(cleared.json()).toMatchObject({
      post_logout_redirect_uris: [],
      id_token_signed_response_alg: null,
      userinfo_signed_response_alg: null,
    });
  });

  for (const { rule, payload, json } of invalid) {
    it(`JSON: ${rule} is 422 with the message that names the field, and nothing is stored`, async () => {
      const before = (await server.deps.stores.applicationAdmin.list()).length;
      const response = await postJson(payload);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({ errors: [json] });
      expect((await server.deps.stores.applicationAdmin.list()).length).toBe(before);
    });
  }

  it('JSON: a PATCH with an unknown algorithm is 422 and changes nothing', async () => {
    const client = await createClient(server.deps, { idTokenSignedResponseAlg: 'EdDSA' });
    const response = await patchJson(client.application.id, { name: 'Changed', id_token_signed_response_alg: 'PS256' });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors).toEqual([
      'ID token signing algorithm must be RS256, ES256 or EdDSA, not "PS256" (leave it blank for RS256).',
    ]);
    expect(await server.deps.stores.applications.findById(client.application.id)).toMatchObject({
      name: client.application.name,
      idTokenSignedResponseAlg: 'EdDSA',
    });
  });

  it('JSON: an algorithm that is not a string is a malformed request (400), not stored', async () => {
    const response = await postJson({ id_token_signed_response_alg: { alg: 'RS256' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('the form offers the three fields, says when they apply, and the show page prints what was saved', async () => {
    const admin = new AdminSession(server.app);
    const form = await admin.get('/oauth/applications/new');
    expect(form.body).toContain('<legend>OpenID Connect</legend>');
    expect(form.body).toContain('OpenID Connect is not enabled on this server: these settings apply once it is');
    expect(form.body).toMatch(/<textarea id="application_post_logout_redirect_uris" name="post_logout_redirect_uris"/);
    expect(form.body).toMatch(/<select id="application_id_token_signed_response_alg" name="id_token_signed_response_alg">/);
    expect(form.body).toContain('<option value="" selected>RS256 (default)</option>');
    expect(form.body).toContain('<option value="" selected>Plain JSON (default)</option>');
    expect(form.body).toContain('<option value="EdDSA">Signed JWT, EdDSA</option>');

    const created = await admin.submit('/oauth/applications', {
      ...BASE,
      post_logout_redirect_uris: 'https://rp.example/bye\r\nhttp://127.0.0.1:9000/bye',
      id_token_signed_response_alg: 'EdDSA',
      userinfo_signed_response_alg: 'ES256',
      confidential: ['0', '1'],
    });
    expect(created.statusCode).toBe(302);
    const id = applicationIdFrom(created.headers.location);
    const show = await admin.follow(created);
    expect(show.body).toContain('<code>https://rp.example/bye</code>');
    expect(show.body).toContain('<code>http://127.0.0.1:9000/bye</code>');
    expect(textOf(show.body, 'id_token_signed_response_alg')).toBe('EdDSA');
    expect(textOf(show.body, 'userinfo_signed_response_alg')).toBe('Signed JWT, ES256');

    const edit = await admin.get(`/oauth/applications/${id}/edit`);
    expect(edit.body).toContain('>\nhttps://rp.example/bye\nhttp://127.0.0.1:9000/bye</textarea>');
    expect(edit.body).toContain('<option value="EdDSA" selected>EdDSA</option>');
    expect(edit.body).toContain('<option value="ES256" selected>Signed JWT, ES256</option>');

    // Blank textarea and the default options clear them.
    const updated = await admin.submit(`/oauth/applications/${id}`, {
      _method: 'patch',
      ...BASE,
      post_logout_redirect_uris: '',
      id_token_signed_response_alg: '',
      userinfo_signed_response_alg: '',
      confidential: ['0', '1'],
    });
    expect(updated.statusCode).toBe(302);
    const after = await admin.follow(updated);
    expect(after.body).toMatch(/<p id="post_logout_redirect_uris"><em>Not defined<\/em><\/p>/);
    expect(textOf(after.body, 'id_token_signed_response_alg')).toBe('RS256 (default)');
    expect(textOf(after.body, 'userinfo_signed_response_alg')).toBe('Plain JSON (default)');
  });

  for (const { rule, payload, field, id } of invalid) {
    it(`the form with ${rule}: 422, the message beside its field, and what was typed kept`, async () => {
      const admin = new AdminSession(server.app);
      const formPayload = Object.fromEntries(
        Object.entries(payload).map(([key, value]) => [key, Array.isArray(value) ? value.join('\n') : String(value)]),
      );
      const page = await admin.submit('/oauth/applications', { ...BASE, ...formPayload, confidential: ['0', '1'] });
      expect(page.statusCode).toBe(422);
      expect(page.body).toContain('<h1>New Application</h1>');
      expect(page.body).toContain(`<p class="field-error" id="${id}">${escapeHtml(field)}</p>`);
      expect(page.body).toMatch(new RegExp(`aria-describedby="[^"]*\\b${id}"`));
      const typed = formPayload.post_logout_redirect_uris;
      if (typed !== undefined) expect(page.body).toContain(`>\n${escapeHtml(typed)}</textarea>`);
      const algorithm = formPayload.id_token_signed_response_alg ?? formPayload.userinfo_signed_response_alg;
      if (algorithm !== undefined) expect(page.body).toContain(`<option value="${escapeHtml(algorithm)}" selected>`);
    });
  }

  it('a name in the page is escaped, and so is a typed algorithm shown back (no markup from input)', async () => {
    const admin = new AdminSession(server.app);
    const page = await admin.submit('/oauth/applications', { ...BASE, id_token_signed_response_alg: '"><script>x</script>' });
    expect(page.statusCode).toBe(422);
    expect(page.body).not.toContain('<script>x</script>');
    expect(page.body).toContain('&lt;script&gt;');
  });
});

describe(`/oauth/applications OpenID Connect settings with openid.enabled (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildOpenIdAdminServer();
  });
  afterAll(() => server.close());

  it('the form and the show page say the settings are in use', async () => {
    const admin = new AdminSession(server.app);
    const form = await admin.get('/oauth/applications/new');
    expect(form.body).toContain('Used by OpenID Connect sign-in and logout.');
    const client = await createClient(server.deps, { postLogoutRedirectUri: 'https://rp.example/bye' });
    const show = await admin.get(`/oauth/applications/${client.application.id}`);
    expect(textOf(show.body, 'openid_note')).toBe('Used by OpenID Connect sign-in and logout.');
    expect(show.body).toContain('<code>https://rp.example/bye</code>');
  });
});
