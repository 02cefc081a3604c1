import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { authorizeUrl, createUser, csrfTokenIn, signedIn, type UserAgent } from '../helpers/end-user.js';
import { createClient, issueToken } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';
import { AdminSession, buildAdminServer, JSON_API, JSON_BODY } from './applications-support.js';
import { createFromMetadataDocument, createSelfRegistered, METADATA_DOCUMENT_URI } from './applications-self-registered-support.js';

// Issue 19: the admin JSON API and pages for clients nobody vetted: what the API shows of them, approve,
// disable, enable, delete, the list filter, and /oauth/authorize refusing a disabled client.

const AUTHORIZATION = {
  redirect_uri: 'https://client.example.com/callback',
  response_type: 'code',
  scope: 'read',
  code_challenge: s256Challenge('a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789'),
  code_challenge_method: 'S256',
};
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe(`/oauth/applications for self-registered clients (${backend})`, () => {
  let server: TestServer;
  let alice: UserAgent;
  const action = (id: number, name: string) =>
    server.app.inject({ method: 'POST', url: `/oauth/applications/${id}/${name}`, headers: JSON_BODY, payload: {} });
  const authorize = (uid: string) =>
    alice.request({
      method: 'GET',
      url: authorizeUrl({ ...AUTHORIZATION, client_id: uid }),
    });

  beforeAll(async () => {
    server = await buildAdminServer();
    await createUser(server.deps, 'alice');
    alice = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  it('GET /oauth/applications/:id shows registered_by, the client-supplied metadata, approved_at, disabled_at and used_at', async () => {
    const dynamic = await createSelfRegistered(server.deps, {
      clientUri: 'https://client.example.com',
      logoUri: 'https://client.example.com/logo.png',
      policyUri: 'javascript:alert(1)',
      tosUri: null,
      contacts: ['ops@client.example.com'],
    });
    const response = await server.app.inject({ method: 'GET', url: `/oauth/applications/${dynamic.id}`, headers: JSON_API });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      registered_by: 'dynamic',
      client_uri: 'https://client.example.com',
      logo_uri: 'https://client.example.com/logo.png',
      policy_uri: 'javascript:alert(1)',
      tos_uri: null,
      contacts: ['ops@client.example.com'],
      approved_at: null,
      disabled_at: null,
      used_at: null,
    });
    const document = await createFromMetadataDocument(server.deps);
    const shown = await server.app.inject({ method: 'GET', url: `/oauth/applications/${document.id}`, headers: JSON_API });
    expect(shown.json()).toMatchObject({ uid: METADATA_DOCUMENT_URI, registered_by: 'metadata_document', approved_at: null });
  });

  it('POST /oauth/applications/:id/approve sets approved_at once; approving an admin-made application is 422', async () => {
    const client = await createSelfRegistered(server.deps);
    const approved = await action(client.id, 'approve');
    expect(approved.statusCode).toBe(200);
    const approvedAt = approved.json().approved_at;
    expect(approvedAt).toMatch(ISO);
    const again = await action(client.id, 'approve');
    expect(again.json().approved_at).toBe(approvedAt);
    expect((await server.deps.stores.applications.findById(client.id))!.approvedAt?.toISOString()).toBe(approvedAt);

    const admin = await createClient(server.deps);
    const refused = await action(admin.application.id, 'approve');
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({ errors: ['An application made by an admin needs no approval'] });
  });

  it('POST disable makes /oauth/authorize show the error page (never a redirect); POST enable lets it through again', async () => {
    const client = await createSelfRegistered(server.deps, { scopes: ['read'] });
    const consent = await authorize(client.uid);
    expect(consent.statusCode).toBe(200);

    const disabled = await action(client.id, 'disable');
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().disabled_at).toMatch(ISO);
    const refused = await authorize(client.uid);
    expect(refused.statusCode).toBe(401);
    expect(refused.headers.location).toBeUndefined();
    expect(refused.body).toContain('This application has been disabled by the administrator of this server.');

    // The consent form posted after the client was disabled is refused the same way (validated again in full).
    const post = await alice.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: FORM,
      payload: form({ ...AUTHORIZATION, client_id: client.uid, _csrf: csrfTokenIn(consent.body)! }),
    });
    expect(post.statusCode).toBe(401);
    expect(post.headers.location).toBeUndefined();

    const enabled = await action(client.id, 'enable');
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json().disabled_at).toBeNull();
    expect((await authorize(client.uid)).statusCode).toBe(200);
  });

  it('disabling an admin-made application blocks it too, and revokes none of its tokens', async () => {
    const { application } = await createClient(server.deps, { redirectUri: 'https://client.example.com/callback', scopes: 'read' });
    const token = await issueToken(server.deps, { application });
    expect((await action(application.id, 'disable')).statusCode).toBe(200);
    expect((await authorize(application.uid)).statusCode).toBe(401);
    const stored = await server.deps.stores.accessTokens.findByToken(token.record.token);
    expect(stored?.revokedAt ?? null).toBeNull();
  });

  it('unknown ids are 404 on approve, disable and enable', async () => {
    for (const name of ['approve', 'disable', 'enable']) {
      const response = await action(424242, name);
      expect(response.statusCode, name).toBe(404);
      expect(response.json().error).toBe('not_found');
    }
  });

  it('DELETE removes a self-registered client with its tokens', async () => {
    const client = await createSelfRegistered(server.deps);
    const token = await issueToken(server.deps, { application: client });
    const response = await server.app.inject({ method: 'DELETE', url: `/oauth/applications/${client.id}`, headers: JSON_API });
    expect(response.statusCode).toBe(204);
    expect(await server.deps.stores.applications.findById(client.id)).toBeNull();
    expect(await server.deps.stores.accessTokens.findByToken(token.record.token)).toBeNull();
  });

  it('GET /oauth/applications?filter= lists self-registered, awaiting approval or disabled clients; an unknown filter is 400', async () => {
    const admin = (await createClient(server.deps)).application;
    const waiting = await createSelfRegistered(server.deps);
    const approved = await createSelfRegistered(server.deps, { approvedAt: new Date() });
    const off = await createSelfRegistered(server.deps, { disabledAt: new Date() });
    const ids = async (filter: string) => {
      const response = await server.app.inject({ method: 'GET', url: `/oauth/applications?filter=${filter}`, headers: JSON_API });
      expect(response.statusCode).toBe(200);
      return (response.json() as Array<{ id: number }>).map((item) => item.id);
    };
    const selfRegistered = await ids('self_registered');
    expect(selfRegistered).toEqual(expect.arrayContaining([waiting.id, approved.id, off.id]));
    expect(selfRegistered).not.toContain(admin.id);
    const awaiting = await ids('awaiting_approval');
    expect(awaiting).toContain(waiting.id);
    expect(awaiting).not.toContain(approved.id);
    const disabled = await ids('disabled');
    expect(disabled).toContain(off.id);
    expect(disabled).not.toContain(waiting.id);
    const bad = await server.app.inject({ method: 'GET', url: '/oauth/applications?filter=everything', headers: JSON_API });
    expect(bad.statusCode).toBe(400);
  });

  it('the HTML actions need the CSRF token, and redirect to the page with a notice', async () => {
    const client = await createSelfRegistered(server.deps);
    const admin = new AdminSession(server.app);
    const page = await admin.get(`/oauth/applications/${client.id}`);
    expect(page.body).toContain(`action="/oauth/applications/${client.id}/approve"`);
    const forged = await server.app.inject({
      method: 'POST',
      url: `/oauth/applications/${client.id}/disable`,
      headers: { ...FORM, authorization: JSON_API.authorization, cookie: admin.cookie! },
      payload: form({}),
    });
    expect(forged.statusCode).toBe(403);
    expect((await server.deps.stores.applications.findById(client.id))!.disabledAt).toBeNull();

    const disabled = await admin.submit(`/oauth/applications/${client.id}/disable`, {});
    expect(disabled.statusCode).toBe(302);
    const next = await admin.follow(disabled);
    expect(next.body).toContain('Application disabled');
    expect(next.body).toContain(`action="/oauth/applications/${client.id}/enable"`);
  });
});
