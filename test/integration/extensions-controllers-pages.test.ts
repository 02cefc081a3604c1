import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { ApplicationsController, AuthorizationsController, AuthorizedApplicationsController } from '../../src/http/controllers/index.js';
import type { SignedInUser } from '../../src/http/hooks/authenticate-resource-owner.js';
import type { AuthorizationRequest } from '../../src/oauth/authorization/authorization-request.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import {
  authorizeUrl,
  CALLBACK,
  createClient,
  createUser,
  csrfTokenIn,
  hiddenFields,
  liveToken,
  locationParameters,
  signedIn,
  type UserAgent,
} from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';
import { ADMIN_PASSWORD, AdminSession, applicationIdFrom, JSON_API } from './applications-support.js';
import { recordingSubclass } from './extensions-support.js';

// SPEC 7: the HTML controller keys `authorizations`, `authorized_applications` and `applications` replaced by
// an extension's subclasses, each seen handling every action of its key through HTTP.

describe(`controller keys authorizations, authorized_applications and applications replaced by subclasses (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let agent: UserAgent;
  let aliceId: number;
  const authorizationsLog: string[] = [];
  const authorizedLog: string[] = [];
  const applicationsLog: string[] = [];

  beforeAll(async () => {
    server = await buildTestServer({
      config: { admin: { passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) } },
      extensions: {
        controllers: {
          authorizations: class extends recordingSubclass(
            AuthorizationsController,
            ['new', 'create', 'destroy', 'show'],
            authorizationsLog,
          ) {
            // The seed's skip_authorization? as an overridable helper: first-party clients skip consent.
            protected override async skipAuthorization(authorization: AuthorizationRequest, owner: SignedInUser) {
              return authorization.application.name.startsWith('First-party') || super.skipAuthorization(authorization, owner);
            }
          },
          authorized_applications: recordingSubclass(AuthorizedApplicationsController, ['index', 'destroy'], authorizedLog),
          applications: recordingSubclass(
            ApplicationsController,
            ['index', 'new', 'create', 'show', 'edit', 'update', 'confirmDestroy', 'destroy', 'confirmRotateSecret', 'rotateSecret'],
            applicationsLog,
          ),
        },
      },
    });
    aliceId = (await createUser(server.deps, 'alice')).id;
    client = (await createClient(server.deps, { name: 'Amazing Client App' })).application;
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const consent = () =>
    agent.request({ method: 'GET', url: authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code' }) });
  const submit = (fields: Record<string, string>) =>
    agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form(fields) });

  it('authorizations: new (GET), create (POST), destroy (POST _method=delete and DELETE) and show (the native code page)', async () => {
    const page = await consent();
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Amazing Client App');

    const approved = await submit(hiddenFields(page.body, 0));
    expect(approved.statusCode).toBe(303);
    expect(locationParameters(approved).get('code')).toBeTruthy();

    const denied = await submit(hiddenFields((await consent()).body, 1));
    expect(locationParameters(denied).get('error')).toBe('access_denied');

    const { _csrf, ...fields } = hiddenFields((await consent()).body, 0);
    const deleted = await agent.request({
      method: 'DELETE',
      url: '/oauth/authorize',
      headers: { ...FORM, 'x-csrf-token': _csrf! },
      payload: form(fields),
    });
    expect(locationParameters(deleted).get('error')).toBe('access_denied');

    const native = await agent.request({ method: 'GET', url: '/oauth/authorize/native?code=abc' });
    expect(native.statusCode).toBe(200);
    expect(native.body).toContain('abc');

    expect(authorizationsLog).toEqual(['new', 'create', 'new', 'destroy', 'new', 'destroy', 'show']);
  });

  it('authorizations: a subclass overriding skipAuthorization approves without the consent page', async () => {
    const firstParty = (await createClient(server.deps, { name: 'First-party portal' })).application;
    authorizationsLog.length = 0;
    const response = await agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: firstParty.uid, redirect_uri: CALLBACK, response_type: 'code' }),
    });
    expect(response.statusCode).toBe(302);
    expect(locationParameters(response).get('code')).toBeTruthy();
    expect((await consent()).statusCode).toBe(200);
    expect(authorizationsLog).toEqual(['new', 'new']);
  });

  it('authorized_applications: index (HTML and JSON) and destroy (the Revoke form and DELETE)', async () => {
    const other = (await createClient(server.deps, { name: 'Other App' })).application;
    await server.deps.stores.accessTokens.create(liveToken(client.id, aliceId, ['read'], server.deps.now()));
    await server.deps.stores.accessTokens.create(liveToken(other.id, aliceId, ['read'], server.deps.now()));
    const index = await agent.request({ method: 'GET', url: '/oauth/authorized_applications' });
    expect(index.body).toContain('Other App');
    const listed = await agent.request({ method: 'GET', url: '/oauth/authorized_applications', headers: { accept: 'application/json' } });
    expect(listed.json()).toHaveLength(2);

    const fields = hiddenFields(index.body.slice(index.body.indexOf(`id="application_${client.id}"`)), 0);
    const revoked = await agent.request({
      method: 'POST',
      url: `/oauth/authorized_applications/${client.id}`,
      headers: FORM,
      payload: form(fields),
    });
    expect(revoked.statusCode).toBe(302);

    const csrf = csrfTokenIn((await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).body)!;
    const deleted = await agent.request({
      method: 'DELETE',
      url: `/oauth/authorized_applications/${other.id}`,
      headers: { accept: 'application/json', 'x-csrf-token': csrf },
    });
    expect(deleted.statusCode).toBe(204);

    expect(authorizedLog).toEqual(['index', 'index', 'destroy', 'index', 'destroy']);
  });

  it('applications: every action of the admin UI and its JSON API', async () => {
    const admin = new AdminSession(server.app);
    expect((await admin.get('/oauth/applications')).statusCode).toBe(200);
    expect((await admin.get('/oauth/applications/new')).statusCode).toBe(200);
    const created = await admin.submit('/oauth/applications', {
      name: 'Worker',
      redirect_uri: 'https://worker.example/cb',
      confidential: ['0', '1'],
    });
    const id = applicationIdFrom(created.headers.location);
    expect((await admin.follow(created)).statusCode).toBe(200);
    expect((await admin.get(`/oauth/applications/${id}/edit`)).statusCode).toBe(200);
    const updated = await admin.submit(`/oauth/applications/${id}`, { _method: 'patch', name: 'Worker 2' });
    expect(updated.statusCode).toBe(302);
    expect((await admin.get(`/oauth/applications/${id}/rotate_secret`)).statusCode).toBe(200);
    const rotated = await admin.submit(`/oauth/applications/${id}/rotate_secret`, {});
    expect(rotated.statusCode).toBe(302);
    expect((await admin.get(`/oauth/applications/${id}/delete`)).statusCode).toBe(200);
    const destroyed = await admin.submit(`/oauth/applications/${id}`, { _method: 'delete' });
    expect(destroyed.headers.location).toBe('/oauth/applications');

    const json = { ...JSON_API, 'content-type': 'application/json' };
    const viaJson = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: json,
      payload: { name: 'Script', redirect_uri: CALLBACK },
    });
    expect(viaJson.statusCode).toBe(201);
    const jsonId = viaJson.json().id as number;
    expect(
      (
        await server.app.inject({ method: 'PUT', url: `/oauth/applications/${jsonId}`, headers: json, payload: { name: 'Script 2' } })
      ).json().name,
    ).toBe('Script 2');
    expect((await server.app.inject({ method: 'DELETE', url: `/oauth/applications/${jsonId}`, headers: JSON_API })).statusCode).toBe(204);

    expect(applicationsLog).toEqual([
      'index',
      'new',
      'create',
      'show',
      'edit',
      'update',
      'confirmRotateSecret',
      'rotateSecret',
      'confirmDestroy',
      'destroy', // HTML
      'create',
      'update',
      'destroy', // JSON
    ]);
  });
});
