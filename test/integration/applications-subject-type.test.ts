import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, applicationIdFrom, buildOpenIdAdminServer, JSON_BODY, textOf } from './applications-support.js';

// Issue 31 item 3: OpenID Connect Core 1.0 section 8's subject type per application, where applications are managed:
// the admin form and show page, the JSON API, and `apps --subject-type` in the CLI. Pairwise needs the salt
// (openid.pairwiseSalt) and a sector: redirect URIs on one host (Core 8.1).

const SALT = 'pairwise-salt-for-applications-tests-0123456789';
const BASE = { name: 'Pairwise client', redirect_uri: 'https://rp.example/cb\nhttps://rp.example/other' };
const NEEDS_SALT = 'Pairwise subject identifiers need OpenID Connect (openid.enabled) and a salt (openid.pairwiseSalt, env PAIRWISE_SALT).';
const ONE_HOST =
  'A pairwise application needs its redirect URIs on one host (its sector, OpenID Connect Core 8.1), or a sector_identifier_uri.';
const LOOPBACK = (host: string) =>
  `A pairwise application whose redirect URIs are on the loopback host ${host} needs a sector_identifier_uri: every native app shares that host, and a sector (OpenID Connect Core 8.1, Registration 2) must be the application's own.`;

describe(`/oauth/applications subject_type (${backend})`, () => {
  let server: TestServer;
  let unsalted: TestServer;
  beforeAll(async () => {
    server = await buildOpenIdAdminServer({ openid: { enabled: true, pairwiseSalt: SALT } });
    unsalted = await buildOpenIdAdminServer();
  });
  afterAll(async () => {
    await server.close();
    await unsalted.close();
  });

  const postJson = (payload: object, on = server) =>
    on.app.inject({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: { ...BASE, ...payload } });
  const patchJson = (id: number, payload: object) =>
    server.app.inject({ method: 'PATCH', url: `/oauth/applications/${id}`, headers: JSON_BODY, payload });
  const stored = async (id: number) => (await server.deps.stores.applications.findById(id))!.subjectType;

  it('JSON: public by default; pairwise is created, shown and kept by a PATCH without it, and set back to public', async () => {
    const plain = await postJson({});
    expect(plain.statusCode).toBe(201);
    expect(plain.json()).toMatchObject({ subject_type: 'public', sector_identifier_uri: null });

    const created = await postJson({ subject_type: 'pairwise' });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json();
    expect(created.json()).toMatchObject({ subject_type: 'pairwise', sector_identifier_uri: null });
    expect(await stored(id)).toBe('pairwise');
    expect((await patchJson(id, { name: 'Renamed' })).json()).toMatchObject({ name: 'Renamed', subject_type: 'pairwise' });
    const back = await patchJson(id, { subject_type: null });
    expect(back.statusCode).toBe(200);
    expect(back.json().subject_type).toBe('public');
    expect(await stored(id)).toBe('public');
  });

  it('JSON: pairwise without the salt is refused (422) naming it, and nothing is stored', async () => {
    const response = await postJson({ subject_type: 'pairwise' }, unsalted);
    expect(response.statusCode).toBe(422);
    expect(JSON.stringify(response.json())).toContain(NEEDS_SALT);
    const list = await unsalted.deps.stores.applicationAdmin.list();
    expect(list.some((application) => application.subjectType === 'pairwise')).toBe(false);
  });

  it('Core 8.1: pairwise with redirect URIs on two hosts has no sector (422); a pairwise client cannot gain a second host', async () => {
    const twoHosts = await postJson({ subject_type: 'pairwise', redirect_uri: 'https://a.example/cb\nhttps://b.example/cb' });
    expect(twoHosts.statusCode).toBe(422);
    expect(JSON.stringify(twoHosts.json())).toContain(ONE_HOST);

    const { id } = (await postJson({ subject_type: 'pairwise' })).json();
    const widened = await patchJson(id, { redirect_uri: 'https://rp.example/cb\nhttps://elsewhere.example/cb' });
    expect(widened.statusCode).toBe(422);
    expect(JSON.stringify(widened.json())).toContain(ONE_HOST);
    expect((await server.deps.stores.applications.findById(id))!.redirectUris).toEqual([
      'https://rp.example/cb',
      'https://rp.example/other',
    ]);
  });

  it('Core 8.1: pairwise with loopback redirect URIs only (a native app) is refused (422): every native app shares that sector', async () => {
    for (const [host, redirect] of <Array<[string, string]>>[
      ['127.0.0.1', 'http://127.0.0.1/cb'],
      ['[::1]', 'http://[::1]:8080/cb'],
    ]) {
      const response = await postJson({ subject_type: 'pairwise', redirect_uri: redirect });
      expect(response.statusCode, redirect).toBe(422);
      expect(JSON.stringify(response.json())).toContain(LOOPBACK(host));
    }
  });

  it('JSON: a value other than public or pairwise is refused (422) naming it', async () => {
    const response = await postJson({ subject_type: 'ppid' });
    expect(response.statusCode).toBe(422);
    expect(JSON.stringify(response.json())).toContain('Subject type must be public or pairwise, not \\"ppid\\".');
  });

  it('the form: a select with public selected by default; pairwise is stored, shown with its sector, and kept on edit', async () => {
    const admin = new AdminSession(server.app);
    const page = await admin.get('/oauth/applications/new');
    expect(page.body).toMatch(/<select id="application_subject_type" name="subject_type"[^>]*>\s*<option value="public" selected>/);

    const created = await admin.submit('/oauth/applications', { ...BASE, confidential: ['0', '1'], subject_type: 'pairwise' });
    expect(created.statusCode, created.body.slice(0, 500)).toBe(302);
    const id = applicationIdFrom(created.headers.location);
    expect(await stored(id)).toBe('pairwise');
    expect(textOf((await admin.follow(created)).body, 'subject_type')).toBe('Pairwise, sector rp.example');
    const edit = await admin.get(`/oauth/applications/${id}/edit`);
    expect(edit.body).toContain('<option value="pairwise" selected>');
  });

  it('the form: an error names the field and keeps the choice; without a salt the help says what is missing', async () => {
    const admin = new AdminSession(server.app);
    await admin.get('/oauth/applications/new');
    const page = await admin.submit('/oauth/applications', {
      ...BASE,
      redirect_uri: 'https://a.example/cb\nhttps://b.example/cb',
      subject_type: 'pairwise',
    });
    expect(page.statusCode).toBe(422);
    expect(page.body).toContain('id="application_subject_type_errors"');
    expect(page.body).toContain('<option value="pairwise" selected>');

    const help = await new AdminSession(unsalted.app).get('/oauth/applications/new');
    expect(help.body).toContain('It needs a salt on the server (openid.pairwiseSalt, env PAIRWISE_SALT).');
  });
});

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service apps --subject-type (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const REDIRECT = ['--redirect-uri', 'https://rp.example/cb'];

  beforeAll(async () => {
    cli = await createCliHarness({ openid: { enabled: true, pairwiseSalt: SALT } });
    // OpenID Connect on PostgreSQL needs the key-encryption key (the embedded database makes one in development).
    cli.env.KEY_ENCRYPTION_KEY = randomBytes(32).toString('hex');
  });
  afterAll(() => cli.close());

  it('apps create --subject-type pairwise; apps show prints it with its sector; apps update sets it back to public', async () => {
    const result = await cli.run(['apps', 'create', '--name', 'Pairwise', ...REDIRECT, '--subject-type', 'pairwise', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created.subject_type).toBe('pairwise');
    expect((await cli.run(['apps', 'show', created.uid])).stdout).toContain('  subject:        pairwise, sector rp.example\n');

    const updated = await cli.run(['apps', 'update', created.uid, '--subject-type', 'public', '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout).subject_type).toBe('public');
    expect((await cli.run(['apps', 'show', created.uid])).stdout).toContain('  subject:        public (the default)\n');
  });

  it('a pairwise client on two hosts or on a loopback host only, or an unknown type, is a usage error naming the problem', async () => {
    const twoHosts = await cli.run([
      'apps',
      'create',
      '--name',
      'Two hosts',
      '--redirect-uri',
      'https://a.example/cb',
      '--redirect-uri',
      'https://b.example/cb',
      '--subject-type',
      'pairwise',
    ]);
    expect(usageErrorLine(twoHosts)).toBe(`oauth-service: ${ONE_HOST}`);
    const loopback = await cli.run([
      'apps',
      'create',
      '--name',
      'Native',
      '--redirect-uri',
      'http://127.0.0.1/cb',
      '--subject-type',
      'pairwise',
    ]);
    expect(usageErrorLine(loopback)).toBe(`oauth-service: ${LOOPBACK('127.0.0.1')}`);
    const unknown = await cli.run(['apps', 'create', '--name', 'Unknown', ...REDIRECT, '--subject-type', 'ppid']);
    expect(usageErrorLine(unknown)).toBe('oauth-service: Subject type must be public or pairwise, not "ppid".');
  });

  it('apply -f: subject_type is a field of an application, as apps --json prints it; applied again nothing changes; left out it is public', async () => {
    const path = join(tmpdir(), `oauth-provisioning-${randomBytes(8).toString('hex')}.json`);
    onTestFinished(() => rmSync(path, { force: true }));
    const apply = async (application: object) => {
      writeFileSync(
        path,
        JSON.stringify({
          applications: [{ uid: 'pairwise-rp', name: 'Pairwise RP', redirect_uris: ['https://rp.example/cb'], ...application }],
        }),
      );
      return cli.run(['apply', '-f', path]);
    };
    const stored = () => cli.withDeps(async (deps) => (await deps.stores.applications.findByUid('pairwise-rp'))!.subjectType);
    expect((await apply({ subject_type: 'pairwise' })).code).toBe(0);
    expect(await stored()).toBe('pairwise');
    expect((await apply({ subject_type: 'pairwise' })).stdout).toMatch(/ 1 unchanged\n$/);
    const bad = await apply({ subject_type: 'ppid' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('applications[0].subject_type: Subject type must be public or pairwise, not "ppid".');
    expect((await apply({})).stdout).toContain('updated application pairwise-rp: subject_type');
    expect(await stored()).toBe('public');
  });

  it('apps --help documents the option', async () => {
    const help = await cli.run(['apps', '--help']);
    expect(help.stdout).toContain('--subject-type public|pairwise');
    expect(help.stdout).toContain('OpenID Connect Core 8.1');
  });
});
