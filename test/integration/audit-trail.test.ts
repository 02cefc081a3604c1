import type { GrantFlow } from '../../src/config/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditFilterOf } from '../../src/oauth/audit/audit-filter.js';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import type { AuditEventRecord } from '../../src/oauth/audit/audit-store.js';
import { cleanUpStaleRecords } from '../../src/oauth/cleanup/cleanup.js';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { PASSWORD, createUser as createEndUser, publicCodeFlow, signedIn, userAgent } from '../helpers/end-user.js';
import { basic, postForm, revokeRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { ADMIN, AdminSession, JSON_BODY, buildAdminServer } from './applications-support.js';

// Issue 32 item 7: every security event is one row of oauth_audit_events (who, what, which object, from where,
// when, outcome; never a secret), admin changes in the transaction of the change; the hot paths write none.

describe(`audit trail (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  beforeAll(async () => {
    const grantFlows: GrantFlow[] = ['authorization_code', 'client_credentials', 'refresh_token', 'password'];
    server = await buildAdminServer({ rateLimit: { maxFailures: 3 }, grantFlows });
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  const events = (type?: string): Promise<AuditEventRecord[]> => listAuditEvents(server.deps, { type, limit: 500 });
  const allRows = async () =>
    (await server.app.database.sql.query<Record<string, unknown>>('SELECT * FROM oauth_audit_events')).map(String);
  const asClient = () => basic(client.uid, client.secret!);

  it('introspection and client_credentials (the hot paths) write no event', async () => {
    const before = (await events()).length;
    const issued = await tokenRequest(server.app, { grant_type: 'client_credentials' }, asClient());
    expect(issued.statusCode).toBe(200);
    const token = (issued.json() as { access_token: string }).access_token;
    const introspected = await postForm(server.app, '/oauth/introspect', { token }, asClient());
    expect(introspected.json()).toMatchObject({ active: true });
    expect((await events()).length).toBe(before);
  });

  it('/login: a failed sign-in, a success and a sign-out are recorded with the address, never the password', async () => {
    const user = await createEndUser(server.deps, 'audited', PASSWORD);
    const failed = await userAgent(server.app).post('/login', { username: 'audited', password: 'wrong password here' });
    expect(failed.statusCode).toBe(401);
    const agent = await signedIn(server.app, 'audited');
    await agent.post('/logout', {}, '/logout');
    const [failure] = await events('user.sign_in.failed');
    expect(failure).toMatchObject({ outcome: 'failure', subjectId: 'audited', ip: '127.0.0.1', details: { username: 'audited' } });
    const [success] = await events('user.sign_in.succeeded');
    expect(success).toMatchObject({ outcome: 'success', actor: `user:${user.id}`, userId: user.id, ip: '127.0.0.1' });
    expect(await events('user.signed_out')).toMatchObject([{ userId: user.id }]);
    expect((await allRows()).join()).not.toContain('wrong password here');
  });

  it('the password grant: a failed and a successful sign-in are recorded as those of /login are, naming the client', async () => {
    const user = await createEndUser(server.deps, 'granted', PASSWORD);
    const password = (value: string) =>
      tokenRequest(server.app, { grant_type: 'password', username: 'granted', password: value }, asClient());
    expect((await password('wrong password here')).statusCode).toBe(400);
    expect((await password(PASSWORD)).statusCode).toBe(200);
    const viaGrant = (await events()).filter((event) => (event.details as { via?: string } | null)?.via === 'password_grant');
    expect(viaGrant).toMatchObject([
      { type: 'user.sign_in.succeeded', actor: `user:${user.id}`, userId: user.id, clientId: client.uid, details: { username: 'granted' } },
      { type: 'user.sign_in.failed', subjectId: 'granted', clientId: client.uid, details: { reason: 'invalid_credentials' } },
    ]);
    expect((await allRows()).join()).not.toContain('wrong password here');
  });

  it('repeated failures lock the user out: user.locked_out names the user name and the address', async () => {
    const agent = userAgent(server.app);
    for (let attempt = 0; attempt < 4; attempt++) await agent.post('/login', { username: 'mallory', password: 'not the password' });
    const [lockout] = await events('user.locked_out');
    expect(lockout).toMatchObject({ outcome: 'failure', actor: 'system', subjectId: 'mallory', ip: '127.0.0.1' });
    expect((await events('user.sign_in.failed')).some((event) => (event.details as { reason?: string }).reason === 'locked_out')).toBe(
      true,
    );
  });

  it("a user's filter (by name or id) also lists the failed sign-ins and the lockout that named the user", async () => {
    const user = await createEndUser(server.deps, 'targeted', PASSWORD);
    const agent = userAgent(server.app);
    for (let attempt = 0; attempt < 4; attempt++) await agent.post('/login', { username: 'targeted', password: 'not the password' });
    for (const filter of ['targeted', String(user.id)]) {
      const { query } = await auditFilterOf(server.deps, { user: filter });
      const types = new Set((await listAuditEvents(server.deps, query!)).map((event) => event.type));
      expect(types).toEqual(new Set(['user.sign_in.failed', 'user.locked_out']));
    }
    // Not another user's: mallory's attempts above are no part of it.
    const { query } = await auditFilterOf(server.deps, { user: 'targeted' });
    expect((await listAuditEvents(server.deps, query!)).every((event) => event.subjectId === 'targeted')).toBe(true);
  });

  it('consent given on the consent screen and revoked on the authorized applications page', async () => {
    const user = await createEndUser(server.deps, 'consenting', PASSWORD);
    const app = await createClient(server.deps, { confidential: false, redirectUri: 'https://client.example.com/callback' });
    const agent = await signedIn(server.app, 'consenting');
    const request = { client_id: app.uid, redirect_uri: 'https://client.example.com/callback', scope: 'read', state: 's' };
    expect((await publicCodeFlow(server.app, agent, request)).token?.statusCode).toBe(200);
    expect(await events('consent.given')).toMatchObject([
      { userId: user.id, clientId: app.uid, details: { scopes: ['read'], prompted: true } },
    ]);
    const revoked = await agent.post(
      `/oauth/authorized_applications/${app.application.id}`,
      { _method: 'delete' },
      '/oauth/authorized_applications',
    );
    expect(revoked.statusCode).toBe(302);
    expect(await events('consent.revoked')).toMatchObject([{ actor: `user:${user.id}`, clientId: app.uid, details: { tokens: 1 } }]);
  });

  it('RFC 7009 revocation and refresh token reuse are recorded with the client and the token row, not its value', async () => {
    const owner = await createUser(server.deps, 'token-owner');
    const pair = await issueToken(server.deps, { application: client.application, resourceOwnerId: owner.id, withRefreshToken: true });
    expect((await revokeRequest(server.app, { token: pair.accessToken }, asClient())).statusCode).toBe(200);
    expect(await events('token.revoked')).toMatchObject([
      { actor: `client:${client.uid}`, subjectType: 'token', subjectId: String(pair.record.id), userId: owner.id },
    ]);
    const live = await issueToken(server.deps, { application: client.application, resourceOwnerId: owner.id, withRefreshToken: true });
    const refresh = () => tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: live.refreshToken! }, asClient());
    expect((await refresh()).statusCode).toBe(200);
    expect((await refresh()).statusCode).toBe(400);
    expect(await events('refresh_token.reuse_detected')).toMatchObject([
      { outcome: 'failure', clientId: client.uid, subjectId: String(live.record.id), details: { family_revoked: 1 } },
    ]);
    expect((await allRows()).join()).not.toContain(live.refreshToken);
  });

  it('admin changes to applications are recorded by the admin with the changed field names; a refused change records nothing', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { name: 'Audited', redirect_uri: 'https://a.example.com/cb' },
    });
    expect(created.statusCode).toBe(201);
    const { id, uid, secret } = created.json() as { id: number; uid: string; secret: string };
    const update = (payload: object) =>
      server.app.inject({ method: 'PATCH', url: `/oauth/applications/${id}`, headers: JSON_BODY, payload });
    expect((await update({ name: 'Audited 2', redirect_uri: 'https://a.example.com/cb' })).statusCode).toBe(200);
    expect((await update({ name: '', redirect_uri: 'https://a.example.com/cb' })).statusCode).toBe(422);
    // An update that changes nothing (an empty PATCH) records nothing.
    expect((await update({})).statusCode).toBe(200);
    await server.app.inject({ method: 'POST', url: `/oauth/applications/${id}/rotate_secret`, headers: JSON_BODY, payload: {} });
    // Disabling twice (a second tab, a retried script) disables once: the second changes nothing and records nothing.
    const verdict = (action: string) =>
      server.app.inject({ method: 'POST', url: `/oauth/applications/${id}/${action}`, headers: JSON_BODY, payload: {} });
    for (const action of ['disable', 'disable', 'enable', 'enable']) expect((await verdict(action)).statusCode).toBe(200);
    await server.app.inject({ method: 'DELETE', url: `/oauth/applications/${id}`, headers: { ...ADMIN, accept: 'application/json' } });
    const trail = (await listAuditEvents(server.deps, { clientId: uid, limit: 50 })).map((event) => event.type);
    expect(trail).toEqual([
      'client.deleted',
      'client.enabled',
      'client.disabled',
      'client.secret_rotated',
      'client.updated',
      'client.created',
    ]);
    expect(await listAuditEvents(server.deps, { clientId: uid, type: 'client.updated', limit: 5 })).toMatchObject([
      { actor: 'admin', ip: '127.0.0.1', subjectType: 'client', details: { fields: ['name'] } },
    ]);
    expect((await allRows()).join()).not.toContain(secret);
  });

  it('admin changes to users through the pages are recorded; the Audit page lists and filters them', async () => {
    const admin = new AdminSession(server.app);
    const { id } = await admin.createThroughForm('users', { username: 'paged', password: 'a long password' });
    await admin.get(`/oauth/users/${id}`);
    await admin.submit(`/oauth/users/${id}/disable`, {});
    const page = await admin.get(`/oauth/audit?user=paged`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('user.disabled');
    expect(page.body).toContain('user.created');
    expect(page.body.match(/<tr id="audit_event_/g)).toHaveLength(2);
    expect(page.body).toContain('aria-current="page">Audit</a>');
    // How long events are kept, in days (it named the config key).
    expect(page.body).toContain('Kept for 90 days (config <code>audit.retentionDays</code>).');
    const byType = await admin.get('/oauth/audit?type=user.disabled');
    expect(byType.body.match(/<tr id="audit_event_/g)).toHaveLength(1);
  });

  it("the Audit page quotes the details' text: a name a stranger typed cannot pass for fields the server wrote", async () => {
    await userAgent(server.app).post('/login', { username: 'nobody reason=locked_out', password: 'not the password' });
    const page = await new AdminSession(server.app).get('/oauth/audit?type=user.sign_in.failed&limit=1');
    expect(page.body).toContain('username=&quot;nobody reason=locked_out&quot; reason=&quot;invalid_credentials&quot;');
  });

  it('the Audit page names each bad filter (422), and needs the admin', async () => {
    const admin = new AdminSession(server.app);
    const bad = await admin.get('/oauth/audit?type=no.such&from=yesterday&limit=0&user=nobody-here');
    expect(bad.statusCode).toBe(422);
    for (const text of [
      "unknown event type 'no.such'",
      'From must be an ISO 8601',
      'Per page must be a whole number',
      "no user named 'nobody-here'",
    ])
      expect(bad.body).toContain(text.replace(/'/g, '&#39;'));
    // Each field in error says so, and points at the messages (they were only listed after the form).
    for (const field of ['type', 'from', 'limit', 'user'])
      expect(bad.body).toMatch(new RegExp(`id="audit_${field}"[^>]* aria-invalid="true" aria-describedby="audit_errors">`));
    expect(bad.body).not.toMatch(/id="audit_to"[^>]* aria-invalid/);
    expect((await server.app.inject({ method: 'GET', url: '/oauth/audit' })).statusCode).toBe(401);
    expect((await admin.get(`/oauth/audit?client=${'x'.repeat(300)}`)).statusCode).toBe(400);
    const nul = await admin.get('/oauth/audit?client=a%00b');
    expect({ status: nul.statusCode, named: nul.body.includes('Client must not contain a NUL character') }).toEqual({
      status: 422,
      named: true,
    });
  });

  it('tokens cleanup deletes events older than audit.retentionDays, and keeps the others', async () => {
    const total = (await events()).length;
    await server.app.database.sql.query(
      "INSERT INTO oauth_audit_events (occurred_at, type, outcome, actor) VALUES (now() - interval '91 days', 'client.created', 'success', 'cli')",
    );
    const result = await cleanUpStaleRecords(server.deps, server.deps.now(), { batchSize: 2 });
    expect(result.deleted.audit_events).toBe(1);
    expect((await events()).length).toBe(total);
  });
});
