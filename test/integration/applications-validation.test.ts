import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, buildAdminServer, expectFormWithErrors, JSON_API } from './applications-support.js';

const JSON_BODY = { ...JSON_API, 'content-type': 'application/json' };

// Reference 7.1 (redirect URIs), 8.4 (scopes) and 13 (name): each rule as the form and the JSON API report it.
const cases: Array<{ rule: string; fields: Record<string, string> & { name: string; redirect_uri: string }; json: string; field: string }> =
  [
    {
      rule: 'a blank name',
      fields: { name: '  ', redirect_uri: 'https://a.example/cb' },
      json: "Name can't be blank",
      field: "Can't be blank",
    },
    {
      rule: 'a fragment in a redirect URI',
      fields: { name: 'A', redirect_uri: 'https://a.example/cb#top' },
      json: 'Redirect URI cannot contain a fragment.',
      field: 'Cannot contain a fragment.',
    },
    {
      rule: 'an http redirect URI that is not loopback while forceSslInRedirectUri is on',
      fields: { name: 'A', redirect_uri: 'http://a.example/cb' },
      json: 'Redirect URI must be an HTTPS/SSL URI.',
      field: 'Must be an HTTPS/SSL URI.',
    },
    {
      rule: 'a scope the server does not configure while enforceConfiguredScopes is on',
      fields: { name: 'A', redirect_uri: 'https://a.example/cb', scopes: 'read admin' },
      json: "Scopes doesn't match those configured on the server.",
      field: "Doesn't match those configured on the server.",
    },
    {
      rule: 'a blank redirect URI while authorization_code is enabled',
      fields: { name: 'A', redirect_uri: '' },
      json: "Redirect URI can't be blank",
      field: "Can't be blank",
    },
  ];

describe(`/oauth/applications validation (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer();
  });
  afterAll(() => server.close());

  for (const { rule, fields, json, field } of cases) {
    it(`POST /oauth/applications with ${rule}: 422 {"errors"} in JSON`, async () => {
      const response = await server.app.inject({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: fields });
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({ errors: [json] });
    });

    it(`POST /oauth/applications with ${rule}: the form again with the banner, the message beside the field, and what was typed`, async () => {
      const admin = new AdminSession(server.app);
      const page = await admin.submit('/oauth/applications', { ...fields, confidential: '0' });
      expectFormWithErrors(page);
      expect(page.body).toContain('<h1>New Application</h1>');
      expect(page.body).toMatch(new RegExp(`<p class="field-error" id="application_\\w+_errors">${escapeRegExp(escapeHtml(field))}</p>`));
      expect(page.body).toContain(`value="${escapeHtml(fields.name)}"`);
      expect(page.body).toContain(`>\n${escapeHtml(fields.redirect_uri)}</textarea>`);
      // The unchecked checkbox stays unchecked.
      expect(page.body).not.toMatch(/name="confidential" value="1"[^>]* checked>/);
    });
  }

  it('PATCH /oauth/applications/:id with a blank name: 422 in JSON, and the edit form with errors in HTML', async () => {
    const client = await createClient(server.deps, { name: 'Valid' });
    const json = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${client.application.id}`,
      headers: JSON_BODY,
      payload: { name: '' },
    });
    expect(json.statusCode).toBe(422);
    expect(json.json()).toEqual({ errors: ["Name can't be blank"] });

    const admin = new AdminSession(server.app);
    const page = await admin.submit(`/oauth/applications/${client.application.id}`, {
      _method: 'patch',
      name: '',
      redirect_uri: 'https://x.example/cb',
      scopes: '',
      confidential: ['0', '1'],
    });
    expectFormWithErrors(page);
    expect(page.body).toContain('<h1>Edit application</h1>');
    expect(page.body).toContain(`action="/oauth/applications/${client.application.id}"`);
    expect(page.body).toContain('https://x.example/cb</textarea>');
    expect((await server.deps.stores.applications.findById(client.application.id))!.name).toBe('Valid');
  });

  it('several problems are all reported', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { name: '', redirect_uri: 'http://x.com/cb#f', scopes: 'nope' },
    });
    expect(response.json().errors).toEqual([
      "Name can't be blank",
      'Redirect URI cannot contain a fragment.',
      'Redirect URI must be an HTTPS/SSL URI.',
      "Scopes doesn't match those configured on the server.",
    ]);
  });

  it('loopback http redirect URIs and custom schemes are accepted', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { name: 'Native', redirect_uri: 'http://127.0.0.1:8000/cb\nhttp://[::1]/cb\ncom.example.app:/cb', confidential: false },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).not.toHaveProperty('secret');
  });
});

describe(`/oauth/applications without redirecting grant flows (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer({ grantFlows: ['client_credentials'], enforceConfiguredScopes: false });
  });
  afterAll(() => server.close());

  it('the form offers a blank redirect URI and accepts it (reference 7.1)', async () => {
    const admin = new AdminSession(server.app);
    const form = await admin.get('/oauth/applications/new');
    expect(form.body).toContain(
      "Leave it blank if you configured your provider to use Client Credentials, Resource Owner Password Credentials or any other grant type that doesn't require a redirect URI.",
    );
    const created = await admin.submit('/oauth/applications', {
      name: 'Machine',
      redirect_uri: '',
      scopes: 'blahblah',
      confidential: ['0', '1'],
    });
    expect(created.statusCode).toBe(302);
    const show = await admin.follow(created);
    expect(show.body).toContain('Application created.');
    expect(show.body).toContain('<p><em>Not defined</em></p>');
  });
});

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
