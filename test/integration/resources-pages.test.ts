import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_NEEDS_KEYS } from '../../src/oauth/tokens/access-token-format.js';
import { createClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import {
  ADMIN,
  AdminSession,
  buildAdminServer,
  buildOpenIdAdminServer,
  expectAdminSection,
  expectFormWithErrors,
  expectNotFoundPages,
  JSON_API,
  JSON_BODY,
  textOf,
} from './applications-support.js';

// The admin's Resources section (issue 17, RFC 8707): pages with CSRF-protected forms, validation messages beside
// their fields, and the JSON API that scripts use like the applications'.

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe(`/oauth/resources HTML pages (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer({ defaultScopes: ['read'], optionalScopes: ['write', 'admin'] });
  });
  afterAll(() => server.close());

  it('requires the admin: no credentials is 401; the admin navigation links to Resources', async () => {
    const resources = await expectAdminSection(server.app, '/oauth/resources', 'Resources');
    expect(resources.body).toContain('No resources yet.');
  });

  it('POST /oauth/resources without the CSRF token is 403 and registers nothing', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/resources',
      headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'uri=https%3A%2F%2Fcsrf.example.com&scopes=read',
    });
    expect(response.statusCode).toBe(403);
    expect(await server.deps.stores.resources.list()).toEqual([]);
  });

  it('create, show, edit and delete through the forms; the name is printed as text', async () => {
    const admin = new AdminSession(server.app);
    const form = await admin.get('/oauth/resources/new');
    expect(form.body).toContain('name="_csrf"');
    expect(form.body).toContain('<option value="jwt">JWT (RFC 9068)</option>');
    const { id, show } = await admin.createThroughForm('resources', {
      uri: 'https://api.example.com',
      name: '<b>Billing</b>',
      scopes: 'read  write',
      token_format: 'opaque',
      access_token_lifetime: '900',
      server_client_id: '',
    });
    expect(show.body).toContain('Resource created.');
    expect(show.body).toContain('<h1>Resource: &lt;b&gt;Billing&lt;/b&gt;</h1>');
    expect(show.body).not.toContain('<b>Billing</b>');
    expect(textOf(show.body, 'resource_uri')).toBe('https://api.example.com');
    expect(textOf(show.body, 'resource_scopes')).toBe('read write');
    expect(textOf(show.body, 'resource_access_token_lifetime')).toBe('900 seconds');
    expect(await server.deps.stores.resources.findById(id)).toMatchObject({
      uri: 'https://api.example.com',
      name: '<b>Billing</b>',
      scopes: ['read', 'write'],
      tokenFormat: 'opaque',
      accessTokenLifetime: 900,
      serverClientId: null,
    });

    const api = await createClient(server.deps, { name: 'Billing API' });
    const edit = await admin.get(`/oauth/resources/${id}/edit`);
    expect(edit.body).toContain('value="https://api.example.com"');
    expect(edit.body).toContain('value="900"');
    const updated = await admin.submit(`/oauth/resources/${id}`, {
      _method: 'patch',
      uri: 'https://api.example.com',
      name: 'Billing',
      scopes: 'read',
      token_format: 'opaque',
      access_token_lifetime: '',
      server_client_id: api.application.uid,
    });
    expect(updated.statusCode).toBe(302);
    const shown = await admin.follow(updated);
    expect(shown.body).toContain('Resource updated.');
    expect(textOf(shown.body, 'resource_access_token_lifetime')).toMatch(/^Server default/);
    expect(shown.body).toContain(`href="/oauth/applications/${api.application.id}"`);
    expect(await server.deps.stores.resources.findById(id)).toMatchObject({ scopes: ['read'], accessTokenLifetime: null });

    const index = await admin.get('/oauth/resources');
    expect(index.body).toContain(`<tr id="resource_${id}">`);
    const confirm = await admin.get(`/oauth/resources/${id}/delete`);
    expect(confirm.body).toContain('Are you sure?');
    const deleted = await admin.submit(`/oauth/resources/${id}`, { _method: 'delete' });
    expect(deleted.statusCode).toBe(302);
    expect(deleted.headers.location).toBe('/oauth/resources');
    expect((await admin.follow(deleted)).body).toContain('Resource deleted.');
    expect(await server.deps.stores.resources.findById(id)).toBeNull();
    expect((await admin.get(`/oauth/resources/${id}`)).statusCode).toBe(404);
  });

  it('a form with errors is 422 with each message beside its field and keeps what was typed', async () => {
    const admin = new AdminSession(server.app);
    const page = await admin.submitNew('/oauth/resources', {
      uri: 'http://api.example.com/#top',
      name: 'Typed name',
      scopes: 'read delete',
      token_format: 'jwt',
      access_token_lifetime: '30',
      server_client_id: 'no-such-client',
      authorization_details_types: '{"payment_initiation": {"schema": {"type": "money"}}}',
    });
    expectFormWithErrors(page);
    expect(textOf(page.body, 'resource_uri_errors')).toBe('Cannot contain a fragment.');
    expect(textOf(page.body, 'resource_scopes_errors')?.replaceAll('&quot;', '"')).toBe(
      'Has "delete", which is not a scope of this server (defaultScopes and optionalScopes: read write admin)',
    );
    expect(textOf(page.body, 'resource_token_format_errors')).toBe(JWT_NEEDS_KEYS);
    expect(textOf(page.body, 'resource_access_token_lifetime_errors')).toContain('Must be a whole number of seconds from 60 to 86400');
    expect(textOf(page.body, 'resource_server_client_id_errors')).toContain('there is none with &quot;no-such-client&quot;');
    expect(page.body).toContain('value="Typed name"');
    expect(page.body).toContain('<option value="jwt" selected>');
    // RFC 9396: the declaration's textarea, its schema refused in words and what was typed kept.
    expect(textOf(page.body, 'resource_authorization_details_types_errors')).toMatch(
      /^The JSON Schema of payment_initiation is not a valid schema: /,
    );
    expect(page.body).toContain('{&quot;payment_initiation&quot;: {&quot;schema&quot;: {&quot;type&quot;: &quot;money&quot;}}}</textarea>');

    const plainHttp = await admin.submit('/oauth/resources', { uri: 'http://api.example.com', scopes: 'read' });
    expect(textOf(plainHttp.body, 'resource_uri_errors')).toMatch(/^Must be an HTTPS URI/);
    const loopback = await admin.submit('/oauth/resources', { uri: 'http://127.0.0.1:8080/api', scopes: 'read' });
    expect(loopback.statusCode).toBe(302);
    const taken = await admin.submit('/oauth/resources', { uri: 'http://127.0.0.1:8080/api', scopes: 'write' });
    expect(taken.statusCode).toBe(422);
    expect(textOf(taken.body, 'resource_uri_errors')).toBe('Is already registered');
  });

  it('an unknown or non-numeric id is 404', async () => {
    const urls = ['/oauth/resources/999999', '/oauth/resources/abc', '/oauth/resources/999999/edit'];
    await expectNotFoundPages(new AdminSession(server.app), urls, 'There is no resource with this id.');
  });
});

describe(`/oauth/resources JSON API (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildOpenIdAdminServer({ optionalScopes: ['write'] });
  });
  afterAll(() => server.close());
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    server.app.inject({ method, url, headers: payload ? JSON_BODY : JSON_API, ...(payload && { payload }) });

  it('POST answers 201 with the flat fields; GET lists and shows them; PATCH keeps what was not sent; DELETE is 204', async () => {
    const created = await call('POST', '/oauth/resources', {
      uri: 'https://api.example.com/v1',
      scopes: 'read write',
      token_format: 'jwt',
      access_token_lifetime: 600,
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(created.headers.location).toBe(`/oauth/resources/${body.id}`);
    expect(body).toEqual({
      id: expect.any(Number),
      uri: 'https://api.example.com/v1',
      name: '',
      scopes: 'read write',
      token_format: 'jwt',
      access_token_lifetime: 600,
      server_client_id: null,
      authorization_details_types: {},
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect((await call('GET', '/oauth/resources')).json()).toEqual([body]);
    expect((await call('GET', `/oauth/resources/${body.id}`)).json()).toEqual(body);

    const patched = await call('PATCH', `/oauth/resources/${body.id}`, { name: 'API v1', access_token_lifetime: null });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'API v1', scopes: 'read write', token_format: 'jwt', access_token_lifetime: null });
    const put = await call('PUT', `/oauth/resources/${body.id}`, { scopes: ['read'], token_format: 'opaque' });
    expect(put.json()).toMatchObject({ name: 'API v1', scopes: 'read', token_format: 'opaque' });
    // RFC 9396: the authorization_details types as JSON itself; a schema that is no schema is a 422 in words.
    const types = {
      payment_initiation: { schema: { type: 'object', required: ['creditorName'] }, consent: { en: 'Pay {{creditorName}}' } },
    };
    const declared = await call('PATCH', `/oauth/resources/${body.id}`, { authorization_details_types: types });
    expect(declared.statusCode, declared.body).toBe(200);
    expect(declared.json()).toMatchObject({ name: 'API v1', authorization_details_types: types });
    const broken = await call('PATCH', `/oauth/resources/${body.id}`, {
      authorization_details_types: { transfer: { schema: { type: 7 } } },
    });
    expect(broken.statusCode).toBe(422);
    expect(broken.json().errors[0]).toMatch(/^The JSON Schema of transfer is not a valid schema: /);

    expect((await call('DELETE', `/oauth/resources/${body.id}`)).statusCode).toBe(204);
    expect((await call('DELETE', `/oauth/resources/${body.id}`)).statusCode).toBe(404);
    expect((await call('GET', `/oauth/resources/${body.id}`)).json()).toMatchObject({ error: expect.any(String) });
  });

  it('validation failures are 422 {"errors": [...]} with every problem', async () => {
    const response = await call('POST', '/oauth/resources', {
      uri: 'api.example.com',
      scopes: '',
      token_format: 'paseto',
      access_token_lifetime: 90000,
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      errors: [
        'URI must be an absolute URI with a scheme, such as https://api.example.com.',
        "Scopes can't be blank: a resource accepts at least one scope",
        'Token format must be opaque or jwt, not "paseto"',
        'Access token lifetime must be a whole number of seconds from 60 to 86400 (leave it empty for the server default)',
      ],
    });
    await call('POST', '/oauth/resources', { uri: 'https://taken.example.com', scopes: 'read' });
    const taken = await call('POST', '/oauth/resources', { uri: 'https://taken.example.com', scopes: 'write' });
    expect(taken.json()).toEqual({ errors: ['URI is already registered'] });
    const wrongType = await call('POST', '/oauth/resources', { uri: 'https://x.example.com', scopes: 'read', name: { a: 1 } });
    expect(wrongType.statusCode).toBe(400);
    // A declaration nested thousands deep: made text for the domain's check, it overflowed the stack (a 500).
    const deep = await server.app.inject({
      method: 'POST',
      url: '/oauth/resources',
      headers: JSON_BODY,
      payload: `{"uri":"https://deep.example.com","scopes":"read","authorization_details_types":{"t":{"schema":{"x":${'['.repeat(6000)}${']'.repeat(6000)}}}}}`,
    });
    expect(deep.statusCode).toBe(422);
    expect(deep.json()).toEqual({
      errors: ['Authorization details types is nested too deeply (at most 32 levels of objects and arrays).'],
    });
  });

  it.each([
    [{ uri: '' }, "URI can't be blank"],
    [{ uri: `https://api.example.com/${'a'.repeat(2000)}` }, 'URI is too long (maximum is 2000 characters)'],
    [{ uri: 'https://api.example.com/a b' }, 'URI must be a valid URI (RFC 3986).'],
    [{ uri: 'javascript://api.example.com/%0aalert(1)' }, 'URI is forbidden by the server.'],
    [{ uri: 'https:///v1' }, 'URI must have a host, such as https://api.example.com.'],
    [{ name: 'n'.repeat(256) }, 'Name is too long (maximum is 255 characters)'],
    [{ name: 'API\u0000' }, 'Name is invalid'],
    [{ name: 'API\u001b[31m' }, 'Name must not contain control characters'],
    [{ scopes: 'read wr"ite' }, 'Scopes has an invalid scope "wr\\"ite": a scope is printable ASCII without spaces, quotes or backslashes'],
  ])('%j is 422 with its one problem, and registers nothing', async (fields, problem) => {
    const before = (await call('GET', '/oauth/resources')).json();
    const response = await call('POST', '/oauth/resources', { uri: 'https://valid.example.com', scopes: 'read', ...fields });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toEqual({ errors: [problem] });
    expect((await call('GET', '/oauth/resources')).json()).toEqual(before);
  });

  it('applications: access_token_format jwt is accepted while openid.enabled is on, and shown in the JSON', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { name: 'JWT client', redirect_uri: 'https://client.example.com/cb', access_token_format: 'jwt' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ access_token_format: 'jwt' });
    const wrong = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${created.json().id}`,
      headers: JSON_BODY,
      payload: { access_token_format: 'JWT' },
    });
    expect(wrong.json()).toEqual({ errors: ['Access token format must be opaque or jwt, not "JWT"'] });
  });
});

describe(`/oauth/applications access token format without signing keys (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer();
  });
  afterAll(() => server.close());

  it('the form offers Opaque and JWT; jwt is refused with the reason while openid.enabled is off', async () => {
    const admin = new AdminSession(server.app);
    const form = await admin.get('/oauth/applications/new');
    expect(form.body).toContain('<option value="opaque" selected>Opaque</option>');
    const page = await admin.submit('/oauth/applications', {
      name: 'Wants JWT',
      redirect_uri: 'https://client.example.com/cb',
      access_token_format: 'jwt',
    });
    expect(page.statusCode).toBe(422);
    expect(textOf(page.body, 'application_access_token_format_errors')).toBe(JWT_NEEDS_KEYS);
    const ok = await admin.submit('/oauth/applications', {
      name: 'Opaque',
      redirect_uri: 'https://client.example.com/cb',
      access_token_format: 'opaque',
    });
    expect(ok.statusCode).toBe(302);
    expect(textOf((await admin.follow(ok)).body, 'access_token_format')).toBe('Opaque');
  });
});
