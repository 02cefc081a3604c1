import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { codeFlow } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, applicationIdFrom, buildOpenIdAdminServer, JSON_API, JSON_BODY, textOf } from './applications-support.js';

// Issue 31 item 1: an application's refreshTokens setting (OpenID Connect Core 1.0 section 11) where applications are
// managed: the admin form (a select) and show page, the JSON API (refresh_tokens), RFC 7591 registration (this
// server's refresh_tokens metadata) and `apps` in the CLI; and what the token endpoint then does with it.

const BASE = { name: 'Offline RP', redirect_uri: 'https://client.example.com/callback' };
const SELECT = /<select id="application_refresh_tokens" name="refresh_tokens"[^>]*>([\s\S]*?)<\/select>/;
const selected = (html: string) => /<option value="([^"]*)" selected>/.exec(SELECT.exec(html)?.[1] ?? '')?.[1];

describe(`/oauth/applications refresh_tokens, OpenID Connect Core 1.0 section 11 (${backend})`, () => {
  let server: TestServer;
  let agent: UserAgent;
  beforeAll(async () => {
    server = await buildOpenIdAdminServer({ grantFlows: ['authorization_code', 'refresh_token'] });
    await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const stored = async (id: number) => (await server.deps.stores.applications.findById(id))!.refreshTokens;
  const postJson = (payload: object) =>
    server.app.inject({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: { ...BASE, ...payload } });
  const patchJson = (id: number, payload: object) =>
    server.app.inject({ method: 'PATCH', url: `/oauth/applications/${id}`, headers: JSON_BODY, payload });

  it('JSON: always by default; offline_access is created, shown and kept by a PATCH without it; null sets it back to always', async () => {
    expect((await postJson({})).json().refresh_tokens).toBe('always');
    const created = await postJson({ refresh_tokens: 'offline_access' });
    expect(created.statusCode).toBe(201);
    const { id } = created.json();
    expect(await stored(id)).toBe('offlineAccess');
    const shown = await server.app.inject({ method: 'GET', url: `/oauth/applications/${id}`, headers: JSON_API });
    expect(shown.json().refresh_tokens).toBe('offline_access');
    expect((await patchJson(id, { name: 'Renamed' })).json()).toMatchObject({ name: 'Renamed', refresh_tokens: 'offline_access' });
    expect((await patchJson(id, { refresh_tokens: null })).json().refresh_tokens).toBe('always');
    expect(await stored(id)).toBe('always');
  });

  it('JSON: another value is 422 naming the field and the allowed values, and nothing is stored', async () => {
    const before = (await server.deps.stores.applicationAdmin.list()).length;
    const response = await postJson({ refresh_tokens: 'offlineAccess' });
    expect(response.statusCode).toBe(422);
    expect(JSON.stringify(response.json())).toContain('Refresh tokens must be always or offline_access, not \\"offlineAccess\\".');
    expect((await server.deps.stores.applicationAdmin.list()).length).toBe(before);
  });

  it('the setting made through the JSON API is what the code exchange applies (section 11)', async () => {
    const created = (await postJson({ refresh_tokens: 'offline_access' })).json();
    const client = { application: (await server.deps.stores.applications.findById(created.id))!, plainSecret: created.secret };
    const without = await codeFlow(server, agent, client, { scope: 'openid' });
    expect(without.response.statusCode).toBe(200);
    expect(without.response.json()).not.toHaveProperty('refresh_token');
    const offline = await codeFlow(server, agent, client, { scope: 'openid offline_access', prompt: 'consent' });
    expect(offline.response.json().refresh_token).toEqual(expect.any(String));

    await patchJson(created.id, { refresh_tokens: 'always' });
    const always = await codeFlow(server, agent, { ...client, application: (await server.deps.stores.applications.findById(created.id))! });
    expect(always.response.json().refresh_token).toEqual(expect.any(String));
  });

  it('the form: a select, always by default; offline_access is stored, shown and kept on the edit form', async () => {
    const admin = new AdminSession(server.app);
    expect(selected((await admin.get('/oauth/applications/new')).body)).toBe('always');
    const created = await admin.submit('/oauth/applications', { ...BASE, confidential: ['0', '1'], refresh_tokens: 'offline_access' });
    expect(created.statusCode).toBe(302);
    const id = applicationIdFrom(created.headers.location);
    expect(await stored(id)).toBe('offlineAccess');
    expect(textOf((await admin.follow(created)).body, 'refresh_tokens')).toBe('Only with offline_access');
    expect(selected((await admin.get(`/oauth/applications/${id}/edit`)).body)).toBe('offline_access');

    const updated = await admin.submit(`/oauth/applications/${id}`, {
      _method: 'patch',
      ...BASE,
      confidential: ['0', '1'],
      refresh_tokens: 'always',
    });
    expect(textOf((await admin.follow(updated)).body, 'refresh_tokens')).toBe('Always (default)');
    expect(await stored(id)).toBe('always');
  });

  it('a form with errors keeps the select as it was chosen', async () => {
    const page = await new AdminSession(server.app).submit('/oauth/applications', { ...BASE, name: '', refresh_tokens: 'offline_access' });
    expect(page.statusCode).toBe(422);
    expect(selected(page.body)).toBe('offline_access');
  });
});

describe(`RFC 7591 registration metadata refresh_tokens (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildOpenIdAdminServer({ registration: { policy: 'open', perAddressPerMinute: 0 } });
  });
  afterAll(() => server.close());

  const register = (payload: object) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: { redirect_uris: ['https://rp.example/cb'], grant_types: ['authorization_code', 'refresh_token'], ...payload },
    });

  it('a client registers refresh_tokens offline_access; the answer and the RFC 7592 read name it; left out it is always', async () => {
    const response = await register({ refresh_tokens: 'offline_access', scope: 'openid offline_access' });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({ refresh_tokens: 'offline_access', scope: 'openid offline_access' });
    expect((await server.deps.stores.applications.findByUid(body.client_id))!.refreshTokens).toBe('offlineAccess');
    const read = await server.app.inject({
      method: 'GET',
      url: `/oauth/register/${body.client_id}`,
      headers: { authorization: `Bearer ${body.registration_access_token}` },
    });
    expect(read.json().refresh_tokens).toBe('offline_access');
    expect((await register({})).json().refresh_tokens).toBe('always');
  });

  it('another value is invalid_client_metadata naming it (RFC 7591 section 3.2.2)', async () => {
    const response = await register({ refresh_tokens: true });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_client_metadata', error_description: 'refresh_tokens: true is not supported.' });
  });
});

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service apps --refresh-tokens (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const REDIRECT = ['--redirect-uri', 'https://rp.example/cb'];
  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps create: always by default, offline-access with the option; apps show and update', async () => {
    const plain = JSON.parse((await cli.run(['apps', 'create', '--name', 'Plain', ...REDIRECT, '--json'])).stdout);
    expect(plain.refresh_tokens).toBe('always');
    const created = await cli.run(['apps', 'create', '--name', 'Offline', ...REDIRECT, '--refresh-tokens', 'offline-access', '--json']);
    expect(created.code).toBe(0);
    const { uid, refresh_tokens } = JSON.parse(created.stdout);
    expect(refresh_tokens).toBe('offline_access');
    expect((await cli.run(['apps', 'show', uid])).stdout).toContain(
      '  refresh tokens: only with offline_access granted (OpenID Connect Core 11)\n',
    );
    const renamed = JSON.parse((await cli.run(['apps', 'update', uid, '--name', 'Renamed', '--json'])).stdout);
    expect(renamed).toMatchObject({ name: 'Renamed', refresh_tokens: 'offline_access' });
    const back = await cli.run(['apps', 'update', uid, '--refresh-tokens', 'always']);
    expect(back.stdout).toContain('  refresh tokens: always (the default)\n');
  });

  it('apply -f: refresh_tokens is a field of an application; applied again nothing changes; another value names its place', async () => {
    const path = join(cli.env.DATA_DIR!, 'provisioning.json');
    const file = (refreshTokens: string) => ({
      applications: [{ uid: 'offline-rp', name: 'Offline RP', redirect_uris: ['https://rp.example/cb'], refresh_tokens: refreshTokens }],
    });
    const apply = async (refreshTokens: string) => {
      writeFileSync(path, JSON.stringify(file(refreshTokens)));
      return cli.run(['apply', '-f', path]);
    };
    expect((await apply('offline_access')).code).toBe(0);
    const stored = () => cli.withDeps(async (deps) => (await deps.stores.applications.findByUid('offline-rp'))!.refreshTokens);
    expect(await stored()).toBe('offlineAccess');
    expect((await apply('offline_access')).stdout).toContain('unchanged');
    const bad = await apply('sometimes');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('applications[0].refresh_tokens: Refresh tokens must be always or offline_access, not "sometimes".');
    expect((await apply('always')).stdout).toContain('refresh_tokens');
    expect(await stored()).toBe('always');
  });

  it('another value is a usage error naming the option, and nothing is written', async () => {
    const result = await cli.run(['apps', 'create', '--name', 'Bad', ...REDIRECT, '--refresh-tokens', 'offline_access']);
    expect(usageErrorLine(result)).toBe('oauth-service: --refresh-tokens must be always or offline-access, not "offline_access"');
    expect((await cli.run(['apps', 'list', '--json'])).stdout).not.toContain('"Bad"');
    expect((await cli.run(['apps', '--help'])).stdout).toContain('--refresh-tokens always|offline-access');
  });
});
