import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { DEFAULT_APPLICATION_SETTINGS_JSON } from '../helpers/factories.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer } from '../helpers/test-server.js';
import { createFromMetadataDocument, createSelfRegistered, METADATA_DOCUMENT_URI } from './applications-self-registered-support.js';

// Issue 19 from the ops CLI: what `apps show|list` say of self-registered clients, and `apps approve|disable|enable`,
// the admin pages' actions through the same domain functions.

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ESC = '\u001b';

describe(`oauth-service apps for self-registered clients (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const selfRegistered = (overrides: Parameters<typeof createSelfRegistered>[1] = {}) =>
    cli.withDeps((deps) => createSelfRegistered(deps, overrides));
  const stored = (uid: string) => cli.withDeps((deps) => deps.stores.applications.findByUid(uid));

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps show --json prints the admin JSON API shape, with registered_by, the client metadata and the three times', async () => {
    const application = await selfRegistered({
      name: 'Notes CLI',
      clientUri: 'https://notes.example/',
      logoUri: 'https://notes.example/logo.png',
      policyUri: 'https://notes.example/policy',
      tosUri: 'https://notes.example/tos',
      contacts: ['ops@notes.example'],
    });
    expect(await cli.json(['apps', 'show', application.uid])).toEqual({
      id: application.id,
      name: 'Notes CLI',
      uid: application.uid,
      redirect_uri: 'https://client.example.com/callback',
      scopes: [],
      confidential: false,
      ...DEFAULT_APPLICATION_SETTINGS_JSON,
      // The CLI's JSON also names the grant types (apps show prints them): those the client registered.
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      jwks: null,
      jwks_uri: null,
      registered_by: 'dynamic',
      client_uri: 'https://notes.example/',
      logo_uri: 'https://notes.example/logo.png',
      policy_uri: 'https://notes.example/policy',
      tos_uri: 'https://notes.example/tos',
      contacts: ['ops@notes.example'],
      approved_at: null,
      disabled_at: null,
      used_at: null,
      created_at: application.createdAt.toISOString(),
      updated_at: application.updatedAt.toISOString(),
    });
    const created = await cli.json(['apps', 'create', '--name', 'Admin made', '--redirect-uri', 'https://a.example/cb']);
    expect(created).toMatchObject({ registered_by: 'admin', client_uri: null, contacts: [], approved_at: null, used_at: null });
    const listed = (await cli.json(['apps', 'list'])).find((row: { uid: string }) => row.uid === application.uid);
    expect(listed).toEqual(await cli.json(['apps', 'show', String(application.id)]));
  });

  it('apps show says where a client came from, its approval, state and first use, and escapes what the client supplied', async () => {
    const hostile = await selfRegistered({
      name: `Evil${ESC}[2J app`,
      clientUri: `javascript:alert(1)${ESC}]8;;https://x${ESC}\\`,
      contacts: [`a@b.example${ESC}[31m`],
      softwareId: 'notes-cli',
      softwareVersion: '1.2.3',
    });
    const shown = await cli.stdout(['apps', 'show', hostile.uid]);
    expect(shown).not.toContain(ESC);
    expect(shown).toContain('  name:           Evil\\u001b[2J app\n');
    expect(shown).toContain('  registered by:  itself (self-registered at /oauth/register, RFC 7591)\n');
    expect(shown).toContain(
      `  approval:       not approved: the consent screen tells users that nobody reviewed it ('apps approve ${hostile.uid}')\n`,
    );
    expect(shown).toContain('  state:          enabled\n');
    expect(shown).toContain('  first used:     never\n');
    expect(shown).toContain('  as the client describes itself (unverified):\n');
    expect(shown).toContain('    client URI:   javascript:alert(1)\\u001b]8;;https://x\\u001b\\\n');
    expect(shown).toContain('    contacts:     a@b.example\\u001b[31m\n');
    expect(shown).toContain('    software:     notes-cli 1.2.3\n');
    expect(shown).toContain('    grant types:  authorization_code refresh_token\n');
    expect(shown).toContain('    client auth:  none\n');
    expect(shown).not.toContain('logo URI');

    const usedAt = new Date('2026-11-20T10:00:00.000Z');
    const document = await cli.withDeps((deps) => createFromMetadataDocument(deps, { usedAt }));
    const documentShown = await cli.stdout(['apps', 'show', METADATA_DOCUMENT_URI]);
    expect(documentShown).toContain(`  registered by:  its Client ID Metadata Document at ${METADATA_DOCUMENT_URI}\n`);
    expect(documentShown).toContain('  first used:     2026-11-20T10:00:00.000Z\n');
    expect(document.registeredBy).toBe('metadata_document');

    const admin = await cli.json(['apps', 'create', '--name', 'Vetted', '--redirect-uri', 'https://v.example/cb']);
    const adminShown = await cli.stdout(['apps', 'show', admin.uid]);
    expect(adminShown).toContain('  registered by:  an admin\n');
    expect(adminShown).toContain('  state:          enabled\n');
    expect(adminShown).not.toContain('approval:');
    expect(adminShown).not.toContain('unverified');
  });

  it('apps list marks self-registered, unapproved and disabled applications, and --filter picks them', async () => {
    const filtered = await createCliHarness();
    try {
      const admin = JSON.parse(
        (await filtered.run(['apps', 'create', '--name', 'Admin app', '--redirect-uri', 'https://a.example/cb', '--json'])).stdout,
      );
      const dynamic = await filtered.withDeps((deps) => createSelfRegistered(deps, { name: 'Dynamic app' }));
      const approved = await filtered.withDeps((deps) => createSelfRegistered(deps, { name: 'Approved app', approvedAt: new Date() }));
      const document = await filtered.withDeps((deps) => createFromMetadataDocument(deps, { disabledAt: new Date() }));
      const table = (await filtered.run(['apps', 'list'])).stdout.split('\n');
      expect(table[0]).toMatch(/^ID\s+UID\s+NAME\s+TYPE\s+STATUS\s+SCOPES\s+REDIRECT URIS$/);
      const row = (uid: string) => table.find((line) => line.includes(uid))!;
      expect(row(admin.uid)).toMatch(/ confidential {2,}admin {2,}/);
      expect(row(dynamic.uid)).toMatch(/ public {2,}self-registered, not approved {2,}/);
      expect(row(approved.uid)).toMatch(/ public {2,}self-registered {2,}/);
      expect(row(document.uid)).toMatch(/ public {2,}metadata document, not approved, disabled {2,}/);

      const uids = async (filter: string) =>
        JSON.parse((await filtered.run(['apps', 'list', '--filter', filter, '--json'])).stdout).map((row: { uid: string }) => row.uid);
      expect(await uids('self_registered')).toEqual([dynamic.uid, approved.uid, document.uid]);
      expect(await uids('awaiting_approval')).toEqual([dynamic.uid, document.uid]);
      expect(await uids('disabled')).toEqual([document.uid]);
      await filtered.run(['apps', 'enable', document.uid]);
      expect((await filtered.run(['apps', 'list', '--filter', 'disabled'])).stdout).toBe('no applications match --filter disabled\n');
      expect(usageErrorLine(await filtered.run(['apps', 'list', '--filter', 'admin']))).toBe(
        'oauth-service: --filter must be one of self_registered, awaiting_approval, disabled',
      );
    } finally {
      await filtered.close();
    }
  });

  it('apps approve stamps approved_at once; approving again keeps the first time', async () => {
    const application = await selfRegistered();
    const approved = await cli.json(['apps', 'approve', application.uid]);
    expect(approved).toMatchObject({ id: application.id, registered_by: 'dynamic', approved_at: expect.stringMatching(ISO) });
    expect((await stored(application.uid))!.approvedAt!.toISOString()).toBe(approved.approved_at);
    expect(await cli.stdout(['apps', 'approve', String(application.id)])).toBe(
      `application ${application.id} (uid ${application.uid}) was already approved at ${approved.approved_at}\n`,
    );
    expect(await cli.stdout(['apps', 'show', application.uid])).toContain(`  approval:       approved at ${approved.approved_at}\n`);

    const other = await selfRegistered();
    expect(await cli.stdout(['apps', 'approve', other.uid])).toBe(
      `approved application ${other.id} (uid ${other.uid}): the consent screen no longer tells users that nobody reviewed it\n`,
    );
  });

  it('apps approve of an application an admin made exits 2 with the reason and changes nothing', async () => {
    const admin = await cli.json(['apps', 'create', '--name', 'Vetted', '--redirect-uri', 'https://v.example/cb']);
    const result = await cli.run(['apps', 'approve', admin.uid, '--json']);
    expect(usageErrorLine(result)).toBe(
      `oauth-service: application ${admin.id} (uid ${admin.uid}) was created by an admin and needs no approval (only self-registered clients are approved)`,
    );
    expect(result.stdout).toBe('');
    expect((await stored(admin.uid))!.approvedAt).toBeNull();
  });

  it('apps disable refuses the client at the token endpoint until apps enable; tokens are not revoked', async () => {
    const created = await cli.json(['apps', 'create', '--name', 'Machine', '--redirect-uri', 'https://m.example/cb']);
    const clientCredentials = () =>
      cli.withDeps(async (_deps, database) => {
        const server = await buildTestServer({ testDatabase: { database, url: null, drop: async () => undefined } });
        try {
          return (await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(created.uid, created.secret))).statusCode;
        } finally {
          await server.close();
        }
      });
    expect(await clientCredentials()).toBe(200);

    const disabled = await cli.json(['apps', 'disable', created.uid]);
    expect(disabled).toMatchObject({ uid: created.uid, disabled_at: expect.stringMatching(ISO) });
    expect(disabled).not.toHaveProperty('secret');
    expect(await clientCredentials()).toBe(401);
    const unrevoked = await cli.withDeps(async (_deps, database) => {
      const rows = await database.sql.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM oauth_access_tokens WHERE application_id = $1 AND revoked_at IS NULL',
        [created.id],
      );
      return rows[0]!.n;
    });
    expect(unrevoked).toBe(1);
    expect(await cli.stdout(['apps', 'disable', created.uid])).toBe(
      `application ${created.id} (uid ${created.uid}) was already disabled at ${disabled.disabled_at}\n`,
    );
    const shown = await cli.stdout(['apps', 'show', created.uid]);
    expect(shown).toContain(
      `  state:          disabled at ${disabled.disabled_at}: it can be neither authorized nor get tokens ('apps enable')\n`,
    );

    expect(await cli.stdout(['apps', 'enable', String(created.id)])).toBe(
      `enabled application ${created.id} (uid ${created.uid}): it can be authorized and get tokens again\n`,
    );
    expect(await clientCredentials()).toBe(200);
    expect((await cli.json(['apps', 'show', created.uid])).disabled_at).toBeNull();
    expect(await cli.stdout(['apps', 'enable', created.uid])).toBe(`application ${created.id} (uid ${created.uid}) was not disabled\n`);

    const sentence = await cli.stdout(['apps', 'disable', created.uid]);
    expect(sentence).toMatch(new RegExp(`^disabled application ${created.id} \\(uid ${created.uid}\\): it can no longer be authorized`));
    expect(sentence).toContain('nothing was revoked');
  });

  it('approve, disable and enable: unknown references and bad arguments exit 2 with one line; --help prints the usage', async () => {
    for (const sub of ['approve', 'disable', 'enable']) {
      expect(usageErrorLine(await cli.run(['apps', sub, 'nope-uid']))).toBe('oauth-service: no application with uid or id nope-uid');
      expect(usageErrorLine(await cli.run(['apps', sub]))).toBe('oauth-service: missing <uid|id>');
      expect(usageErrorLine(await cli.run(['apps', sub, 'a', 'b']))).toBe("oauth-service: unexpected argument 'b'");
      const help = await cli.run(['apps', sub, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`  ${sub} <uid|id>`);
    }
  });
});
