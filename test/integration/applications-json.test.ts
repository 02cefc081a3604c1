import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { createClient, DEFAULT_APPLICATION_SETTINGS_JSON } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { basicAuth, form, FORM, type TestServer } from '../helpers/test-server.js';
import { applicationJsonApi, buildAdminServer, expectCreateRefused, JSON_API } from './applications-support.js';

const JSON_BODY = { ...JSON_API, 'content-type': 'application/json' };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe(`/oauth/applications JSON API (${backend})`, () => {
  let server: TestServer;
  const seen: string[] = [];
  const call = async (options: InjectOptions) => {
    const response = await server.app.inject(options);
    seen.push(response.body);
    return response;
  };

  beforeAll(async () => {
    server = await buildAdminServer({ optionalScopes: ['write'] });
  });
  afterAll(() => server.close());

  it('POST /oauth/applications answers 201 with the flat attributes and the plain secret once', async () => {
    const response = await call({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { name: 'Scripted', redirect_uri: 'https://a.example/cb\nhttps://b.example/cb', scopes: 'read write', confidential: true },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(response.headers.location).toBe(`/oauth/applications/${body.id}`);
    expect(body).toEqual({
      id: expect.any(Number),
      name: 'Scripted',
      uid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      redirect_uri: 'https://a.example/cb\nhttps://b.example/cb',
      scopes: ['read', 'write'],
      confidential: true,
      ...DEFAULT_APPLICATION_SETTINGS_JSON,
      token_endpoint_auth_method: null,
      jwks: null,
      jwks_uri: null,
      registered_by: 'admin',
      client_uri: null,
      logo_uri: null,
      policy_uri: null,
      tos_uri: null,
      contacts: [],
      approved_at: null,
      disabled_at: null,
      used_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const stored = await server.deps.stores.applications.findById(body.id);
    expect(stored!.secret).toBe(sha256Hex(body.secret));

    // The secret shown once is the client's secret at the token endpoint (RFC 6749 section 4.4).
    const token = await call({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(body.uid, body.secret) },
      payload: form({ grant_type: 'client_credentials', scope: 'read' }),
    });
    expect(token.statusCode).toBe(200);
    expect(token.json()).toMatchObject({ token_type: 'Bearer', scope: 'read' });

    const show = await call({ method: 'GET', url: `/oauth/applications/${body.id}`, headers: JSON_API });
    expect(show.statusCode).toBe(200);
    expect(show.json()).not.toHaveProperty('secret');
    expect(show.json()).toMatchObject({ id: body.id, uid: body.uid, name: 'Scripted' });
  });

  it('POST /oauth/applications ignores fields that cannot be mass-assigned (uid, secret)', async () => {
    const response = await call({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { name: 'No import', redirect_uri: ['https://a.example/cb'], uid: 'chosen-uid', secret: 'x'.repeat(40) },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().uid).not.toBe('chosen-uid');
    expect(response.json().secret).not.toBe('x'.repeat(40));
    expect(response.json()).toMatchObject({ redirect_uri: 'https://a.example/cb', confidential: true, scopes: [] });
  });

  it('GET /oauth/applications answers 200 with the list in creation order and no secrets', async () => {
    const first = await createClient(server.deps, { name: 'Listed first' });
    const second = await createClient(server.deps, { name: 'Listed second', confidential: false });
    const response = await call({ method: 'GET', url: '/oauth/applications', headers: JSON_API });
    expect(response.statusCode).toBe(200);
    const list = response.json() as Array<Record<string, unknown>>;
    const ids = list.map((item) => item.id);
    expect(ids.indexOf(first.application.id)).toBeLessThan(ids.indexOf(second.application.id));
    for (const item of list) expect(item).not.toHaveProperty('secret');
    expect(list.find((item) => item.id === second.application.id)).toMatchObject({ confidential: false, uid: second.uid });
    expect(response.body).not.toContain(sha256Hex(first.secret!));
  });

  it('PATCH /oauth/applications/:id answers 200 and keeps the fields that were not sent', async () => {
    const client = await createClient(server.deps, { name: 'Before', redirectUri: 'https://keep.example/cb', scopes: 'read' });
    const response = await call({
      method: 'PATCH',
      url: `/oauth/applications/${client.application.id}`,
      headers: JSON_BODY,
      payload: { name: 'After' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ name: 'After', redirect_uri: 'https://keep.example/cb', scopes: ['read'], confidential: true });
    expect(response.json()).not.toHaveProperty('secret');
    const put = await call({
      method: 'PUT',
      url: `/oauth/applications/${client.application.id}`,
      headers: JSON_BODY,
      payload: { scopes: ['read', 'write'] },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ name: 'After', scopes: ['read', 'write'] });
  });

  // Each PATCH merged its fields into the row it had read before the other's write: one change was lost (a race
  // audit: 10 of 10 pairs on two instances). Now each merges into the row as the other left it.
  it('PATCHes of different fields at once all stay: none merges into a row the other has changed', async () => {
    const client = await createClient(server.deps, { name: 'Before', redirectUri: 'https://before.example/cb', scopes: 'read' });
    const patch = (payload: object) =>
      call({ method: 'PATCH', url: `/oauth/applications/${client.application.id}`, headers: JSON_BODY, payload });
    const answers = await Promise.all([
      patch({ name: 'Renamed' }),
      patch({ redirect_uri: 'https://after.example/cb' }),
      patch({ scopes: ['read', 'write'] }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    expect(await server.deps.stores.applications.findById(client.application.id)).toMatchObject({
      name: 'Renamed',
      redirectUris: ['https://after.example/cb'],
      scopes: ['read', 'write'],
    });
  });

  it('PATCH with a flag that is neither a boolean nor a form checkbox value is 400 and changes nothing', async () => {
    const client = await createClient(server.deps, { name: 'Stays confidential' });
    // null too: Ajv's type coercion read it as false, which made a client public and dropped its secret.
    for (const confidential of ['yes', 'maybe', ['1', 'yes'], null]) {
      const response = await server.app.inject({
        method: 'PATCH',
        url: `/oauth/applications/${client.application.id}`,
        headers: JSON_BODY,
        payload: { confidential },
      });
      expect({ confidential, status: response.statusCode }).toEqual({ confidential, status: 400 });
      // One sentence for the field's alternatives, not Ajv's error for each and "must match a schema in anyOf".
      expect(response.json().error_description).toBe(
        'The request is malformed: confidential must be true or false, one of "0", "1", "false", "true", "off", "on" or a list of those.',
      );
    }
    expect((await server.deps.stores.applications.findById(client.application.id))!.confidential).toBe(true);
  });

  it("client_credentials in a public client's grant types is 422 (it could only ever get unauthorized_client), as at registration", async () => {
    const api = applicationJsonApi(server.app, { redirect_uri: 'https://job.example/cb' });
    const refusal = 'Client credentials needs a confidential client: a public client cannot authenticate (RFC 6749 section 4.4).';
    await expectCreateRefused(server, () => api.post({ name: 'Job', confidential: false, grant_types: ['client_credentials'] }), [refusal]);
    const created = await api.post({ name: 'Job', grant_types: ['client_credentials'] });
    expect(created.statusCode).toBe(201);
    const { id } = created.json<{ id: number }>();
    const madePublic = await api.patch(id, { confidential: false });
    expect({ status: madePublic.statusCode, body: madePublic.json() }).toEqual({ status: 422, body: { errors: [refusal] } });
    expect((await server.deps.stores.applications.findById(id))!.confidential).toBe(true);
  });

  it('a PATCH that changes nothing (empty, or the same values) writes nothing: updated_at stays', async () => {
    const client = await createClient(server.deps, { name: 'Unchanged' });
    const before = (await server.deps.stores.applications.findById(client.application.id))!.updatedAt;
    server.clock.advance(60);
    for (const payload of [{}, { name: 'Unchanged' }]) {
      const response = await server.app.inject({
        method: 'PATCH',
        url: `/oauth/applications/${client.application.id}`,
        headers: JSON_BODY,
        payload,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().updated_at).toBe(before.toISOString());
    }
    expect((await server.deps.stores.applications.findById(client.application.id))!.updatedAt).toEqual(before);
  });

  it('PATCH turning a public client confidential returns its first secret once', async () => {
    const client = await createClient(server.deps, { name: 'Was public', confidential: false });
    const response = await call({
      method: 'PATCH',
      url: `/oauth/applications/${client.application.id}`,
      headers: JSON_BODY,
      payload: { confidential: true },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ confidential: true, secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });

  it('POST /oauth/applications/:id/rotate_secret answers 200 with the new secret; the old one stops working', async () => {
    const client = await createClient(server.deps, { name: 'Rotated' });
    const response = await call({
      method: 'POST',
      url: `/oauth/applications/${client.application.id}/rotate_secret`,
      headers: JSON_BODY,
      payload: {},
    });
    expect(response.statusCode).toBe(200);
    const { secret } = response.json();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secret).not.toBe(client.secret);
    const tokenWith = (clientSecret: string) =>
      call({
        method: 'POST',
        url: '/oauth/token',
        headers: { ...FORM, authorization: basicAuth(client.uid, clientSecret) },
        payload: form({ grant_type: 'client_credentials' }),
      });
    expect((await tokenWith(client.secret!)).statusCode).toBe(401);
    expect((await tokenWith(secret)).statusCode).toBe(200);
  });

  it('rotate_secret of a public client is 422 with the reason', async () => {
    const client = await createClient(server.deps, { name: 'No secret', confidential: false });
    const response = await call({
      method: 'POST',
      url: `/oauth/applications/${client.application.id}/rotate_secret`,
      headers: JSON_BODY,
      payload: {},
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({ errors: ['A public client has no secret to rotate'] });
  });

  it('DELETE /oauth/applications/:id answers 204 and a second DELETE 404', async () => {
    const client = await createClient(server.deps, { name: 'Doomed' });
    const response = await call({ method: 'DELETE', url: `/oauth/applications/${client.application.id}`, headers: JSON_API });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(await server.deps.stores.applications.findById(client.application.id)).toBeNull();
    const again = await call({ method: 'DELETE', url: `/oauth/applications/${client.application.id}`, headers: JSON_API });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'not_found', error_description: expect.any(String) });
    // A client that sets Content-Type: application/json on every call, a DELETE without a body included (was a 400).
    const other = await createClient(server.deps, { name: 'Doomed too' });
    const withHeader = await call({ method: 'DELETE', url: `/oauth/applications/${other.application.id}`, headers: JSON_BODY });
    expect(withHeader.statusCode).toBe(204);
  });

  it('DELETE of an application that serves a resource leaves the resource without a server client, not a dangling one', async () => {
    const api = await createClient(server.deps, { name: 'The API' });
    const other = await createClient(server.deps, { name: 'Another API' });
    const common = { name: '', scopes: ['read'], tokenFormat: 'opaque' as const, accessTokenLifetime: null };
    const served = await server.deps.stores.resources.create({ ...common, uri: 'https://served.example', serverClientId: api.uid });
    const kept = await server.deps.stores.resources.create({ ...common, uri: 'https://kept.example', serverClientId: other.uid });
    const response = await call({ method: 'DELETE', url: `/oauth/applications/${api.application.id}`, headers: JSON_API });
    expect(response.statusCode).toBe(204);
    const after = await server.deps.stores.resources.findByUris([served.uri, kept.uri]);
    expect(Object.fromEntries(after.map((resource) => [resource.uri, resource.serverClientId]))).toEqual({
      [served.uri]: null,
      [kept.uri]: other.uid,
    });
  });

  it('an unknown or non-numeric id is 404 JSON on every route', async () => {
    const requests = [
      { method: 'GET', url: '/oauth/applications/424242' },
      { method: 'GET', url: '/oauth/applications/not-a-number' },
      { method: 'PATCH', url: '/oauth/applications/424242', payload: { name: 'x' } },
      { method: 'POST', url: '/oauth/applications/424242/rotate_secret', payload: {} },
      { method: 'DELETE', url: '/oauth/applications/abc' },
    ] as const;
    for (const request of requests) {
      const headers = 'payload' in request ? JSON_BODY : JSON_API;
      const response = await call({ ...request, headers });
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(404);
      expect(response.json().error).toBe('not_found');
    }
  });

  it('a malformed JSON body is 400 JSON, not 500', async () => {
    const response = await call({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: '{"name":' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'The request body is not valid JSON, or holds a __proto__ or constructor.prototype key.',
    });
    const wrongShape = await call({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: { name: { nested: true } } });
    expect(wrongShape.statusCode).toBe(400);
  });

  it('a JSON call that carries a cookie must carry the CSRF token like a form', async () => {
    const response = await call({
      method: 'POST',
      url: '/oauth/applications',
      headers: { ...JSON_BODY, cookie: 'oauth_session=whatever' },
      payload: { name: 'x' },
    });
    expect(response.statusCode).toBe(403);
  });

  it('no JSON answer ever contained a stored secret hash', async () => {
    const applications = await server.deps.stores.applicationAdmin.list();
    const hashes = applications.map((application) => application.secret).filter((secret): secret is string => secret !== null);
    expect(hashes.length).toBeGreaterThan(0);
    for (const body of seen) for (const hash of hashes) expect(body).not.toContain(hash);
  });
});
