import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { createClient } from '../helpers/factories.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, applicationIdFrom, buildAdminServer, JSON_API, JSON_BODY, textOf } from './applications-support.js';

// Issue 18: RFC 9449 section 5.2's dpop_bound_access_tokens per application, where applications are managed: the
// admin form (a checkbox with a hidden "0", like confidential) and show page, the JSON API, and `apps` in the CLI.

const BASE = { name: 'Bound client', redirect_uri: 'https://rp.example/cb' };
const CHECKBOX =
  /<input type="hidden" name="dpop_bound_access_tokens" value="0">\s*<label class="checkbox" for="application_dpop_bound_access_tokens"><input type="checkbox" id="application_dpop_bound_access_tokens" name="dpop_bound_access_tokens" value="1"[^>]*?( checked)?> Require DPoP-bound tokens \(RFC 9449\)<\/label>/;

describe(`/oauth/applications dpop_bound_access_tokens (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer();
  });
  afterAll(() => server.close());

  const stored = async (id: number) => (await server.deps.stores.applications.findById(id))!.dpopBoundAccessTokens;
  const postJson = (payload: object) =>
    server.app.inject({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: { ...BASE, ...payload } });
  const patchJson = (id: number, payload: object) =>
    server.app.inject({ method: 'PATCH', url: `/oauth/applications/${id}`, headers: JSON_BODY, payload });

  it('JSON: false by default; create, show, list and PATCH round-trip it; a PATCH without it keeps it', async () => {
    const plain = await postJson({});
    expect(plain.statusCode).toBe(201);
    expect(plain.json().dpop_bound_access_tokens).toBe(false);

    const created = await postJson({ dpop_bound_access_tokens: true });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ dpop_bound_access_tokens: true, confidential: true });
    const { id } = created.json();
    expect(await stored(id)).toBe(true);
    const shown = await server.app.inject({ method: 'GET', url: `/oauth/applications/${id}`, headers: JSON_API });
    expect(shown.json().dpop_bound_access_tokens).toBe(true);
    const listed = await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: JSON_API });
    expect(listed.json().find((application: { id: number }) => application.id === id).dpop_bound_access_tokens).toBe(true);

    const renamed = await patchJson(id, { name: 'Renamed' });
    expect(renamed.json()).toMatchObject({ name: 'Renamed', dpop_bound_access_tokens: true });
    const off = await patchJson(id, { dpop_bound_access_tokens: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ name: 'Renamed', dpop_bound_access_tokens: false });
    expect(await stored(id)).toBe(false);
  });

  it('JSON: a value that is not a boolean or a string is a malformed request (400), not stored', async () => {
    const response = await postJson({ dpop_bound_access_tokens: { on: true } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('the setting made through the JSON API is what the token endpoint enforces (section 5.2)', async () => {
    const created = (await postJson({ dpop_bound_access_tokens: true })).json();
    const headers = basic(created.uid, created.secret);
    const without = await tokenRequest(server.app, { grant_type: 'client_credentials' }, headers);
    expect(without.statusCode).toBe(400);
    expect(without.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    const htu = `${server.config.baseUrl.replace(/\/+$/, '')}/oauth/token`;
    const proof = await dpopProof(await dpopKey(), { htu });
    const withProof = await tokenRequest(server.app, { grant_type: 'client_credentials' }, { ...headers, dpop: proof });
    expect(withProof.statusCode).toBe(200);
    expect(withProof.json().token_type).toBe('DPoP');

    await patchJson(created.id, { dpop_bound_access_tokens: false });
    const bearer = await tokenRequest(server.app, { grant_type: 'client_credentials' }, headers);
    expect(bearer.statusCode).toBe(200);
    expect(bearer.json().token_type).toBe('Bearer');
  });

  it('the form: an unchecked checkbox with its hidden "0"; checked, it is stored, shown, and kept on the edit form', async () => {
    const admin = new AdminSession(server.app);
    const page = await admin.get('/oauth/applications/new');
    const box = CHECKBOX.exec(page.body);
    expect(box).not.toBeNull();
    expect(box![1]).toBeUndefined();

    const created = await admin.submit('/oauth/applications', { ...BASE, confidential: ['0', '1'], dpop_bound_access_tokens: ['0', '1'] });
    expect(created.statusCode).toBe(302);
    const id = applicationIdFrom(created.headers.location);
    expect(await stored(id)).toBe(true);
    const show = await admin.follow(created);
    expect(textOf(show.body, 'dpop_bound_access_tokens')).toBe('Required');
    const edit = await admin.get(`/oauth/applications/${id}/edit`);
    expect(CHECKBOX.exec(edit.body)?.[1]).toBe(' checked');

    // Unchecked, the browser sends only the hidden "0".
    const updated = await admin.submit(`/oauth/applications/${id}`, {
      _method: 'patch',
      ...BASE,
      confidential: ['0', '1'],
      dpop_bound_access_tokens: '0',
    });
    expect(updated.statusCode).toBe(302);
    expect(textOf((await admin.follow(updated)).body, 'dpop_bound_access_tokens')).toBe('Not required');
    expect(await stored(id)).toBe(false);
  });

  it('a form with errors keeps the box as it was typed', async () => {
    const admin = new AdminSession(server.app);
    const page = await admin.submit('/oauth/applications', { ...BASE, name: '', dpop_bound_access_tokens: ['0', '1'] });
    expect(page.statusCode).toBe(422);
    expect(CHECKBOX.exec(page.body)?.[1]).toBe(' checked');
  });

  it('a form POST that turns it on without the CSRF token is 403 and changes nothing', async () => {
    const client = await createClient(server.deps);
    // The admin's session cookie with a forged token in place of the one its form holds.
    const response = await new AdminSession(server.app).submit(`/oauth/applications/${client.application.id}`, {
      _method: 'patch',
      ...BASE,
      dpop_bound_access_tokens: '1',
      _csrf: 'forged',
    });
    expect(response.statusCode).toBe(403);
    expect(await stored(client.application.id)).toBe(false);
  });
});

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service apps --[no-]dpop-bound-access-tokens (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const REDIRECT = ['--redirect-uri', 'https://rp.example/cb'];
  const stored = async (uid: string) => (await cli.withDeps((deps) => deps.stores.applications.findByUid(uid)))!.dpopBoundAccessTokens;

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps create: off by default, on with the option; apps show prints it as text and JSON', async () => {
    const plain = JSON.parse((await cli.run(['apps', 'create', '--name', 'Plain', ...REDIRECT, '--json'])).stdout);
    expect(plain.dpop_bound_access_tokens).toBe(false);
    expect((await cli.run(['apps', 'show', plain.uid])).stdout).toContain('  DPoP:           optional\n');

    const result = await cli.run(['apps', 'create', '--name', 'Bound', ...REDIRECT, '--dpop-bound-access-tokens', '--json']);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created.dpop_bound_access_tokens).toBe(true);
    expect(await stored(created.uid)).toBe(true);
    const text = await cli.run(['apps', 'show', created.uid]);
    expect(text.stdout).toContain('  DPoP:           required (DPoP-bound tokens only, RFC 9449)\n');
    expect(JSON.parse((await cli.run(['apps', 'show', created.uid, '--json'])).stdout).dpop_bound_access_tokens).toBe(true);
    const listed = JSON.parse((await cli.run(['apps', 'list', '--json'])).stdout);
    expect(listed.find((application: { uid: string }) => application.uid === created.uid).dpop_bound_access_tokens).toBe(true);
  });

  it('apps update turns it off and on; an update without the options keeps it', async () => {
    const { uid } = JSON.parse(
      (await cli.run(['apps', 'create', '--name', 'Toggle', ...REDIRECT, '--dpop-bound-access-tokens', '--json'])).stdout,
    );
    const renamed = JSON.parse((await cli.run(['apps', 'update', uid, '--name', 'Renamed', '--json'])).stdout);
    expect(renamed).toMatchObject({ name: 'Renamed', dpop_bound_access_tokens: true });

    const off = await cli.run(['apps', 'update', uid, '--no-dpop-bound-access-tokens', '--json']);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ name: 'Renamed', dpop_bound_access_tokens: false });
    expect(await stored(uid)).toBe(false);

    const on = await cli.run(['apps', 'update', uid, '--dpop-bound-access-tokens']);
    expect(on.code).toBe(0);
    expect(on.stdout).toContain('  DPoP:           required');
    expect(await stored(uid)).toBe(true);
  });

  it('both options at once are a usage error, and nothing is written', async () => {
    const before = await cli.applicationCount();
    const both = ['--dpop-bound-access-tokens', '--no-dpop-bound-access-tokens'];
    const create = await cli.run(['apps', 'create', '--name', 'Both', ...REDIRECT, ...both]);
    expect(usageErrorLine(create)).toBe(
      'oauth-service: --dpop-bound-access-tokens and --no-dpop-bound-access-tokens contradict each other',
    );
    expect(await cli.applicationCount()).toBe(before);

    const { uid } = JSON.parse((await cli.run(['apps', 'create', '--name', 'Kept', ...REDIRECT, '--json'])).stdout);
    const update = await cli.run(['apps', 'update', uid, ...both]);
    expect(usageErrorLine(update)).toContain('contradict each other');
    expect(await stored(uid)).toBe(false);
  });

  it('apps --help documents both options', async () => {
    const help = await cli.run(['apps', '--help']);
    expect(help.stdout).toContain('--dpop-bound-access-tokens | --no-dpop-bound-access-tokens');
    expect(help.stdout).toContain('RFC 9449 section 5.2');
  });
});
