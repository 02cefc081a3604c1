import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_NEEDS_KEYS } from '../../src/oauth/tokens/access-token-format.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// `oauth-service resources` (issue 17): the APIs registered as resources, as an operator manages them.
// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service resources (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;

  beforeAll(async () => {
    // OpenID Connect off on both databases (the CLI turns it on by itself for an embedded database): JWT access tokens
    // need it, which two tests below check.
    cli = await createCliHarness({ defaultScopes: ['read'], optionalScopes: ['write'], openid: { enabled: false } });
  });
  afterAll(() => cli.close());

  it('resources create --json prints the flat fields; list and show (by id or URI) print the same', async () => {
    const created = await cli.json([
      'resources',
      'create',
      '--uri',
      'https://api.example.com',
      '--scopes',
      'read write',
      '--token-format',
      'opaque',
      '--access-token-lifetime',
      '900',
      '--name',
      'Billing API',
    ]);
    expect(created).toEqual({
      id: expect.any(Number),
      uri: 'https://api.example.com',
      name: 'Billing API',
      scopes: 'read write',
      token_format: 'opaque',
      access_token_lifetime: 900,
      server_client_id: null,
      authorization_details_types: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await cli.json(['resources', 'list'])).toEqual([created]);
    expect(await cli.json(['resources', 'show', 'https://api.example.com'])).toEqual(created);
    expect(await cli.json(['resources', 'show', String(created.id)])).toEqual(created);

    const text = await cli.run(['resources', 'show', 'https://api.example.com']);
    expect(text.stdout).toContain('uri:            https://api.example.com');
    expect(text.stdout).toContain('lifetime:       900 seconds');
    const table = await cli.run(['resources', 'list']);
    expect(table.stdout).toMatch(/^ID\s+URI\s+NAME\s+SCOPES\s+FORMAT/);
  });

  it('resources update changes only the options given; "" clears the lifetime and the server client', async () => {
    const app = await cli.json(['apps', 'create', '--name', 'Reports API', '--redirect-uri', 'https://reports.example.com/cb']);
    await cli.json([
      'resources',
      'create',
      '--uri',
      'https://reports.example.com/api',
      '--scopes',
      'read',
      '--access-token-lifetime',
      '600',
    ]);
    const updated = await cli.json([
      'resources',
      'update',
      'https://reports.example.com/api',
      '--server-client-id',
      app.uid,
      '--scopes',
      'read write',
    ]);
    expect(updated).toMatchObject({ server_client_id: app.uid, scopes: 'read write', access_token_lifetime: 600, token_format: 'opaque' });
    const cleared = await cli.json(['resources', 'update', String(updated.id), '--access-token-lifetime', '', '--server-client-id', '']);
    expect(cleared).toMatchObject({ access_token_lifetime: null, server_client_id: null, scopes: 'read write' });
    // The trail names the fields each update changed; one that changes nothing is not recorded.
    await cli.json(['resources', 'update', String(updated.id), '--scopes', 'read write']);
    const events = await cli.json(['audit', 'list', '--type', 'resource.updated']);
    expect(events.map((event: { details: object }) => event.details)).toEqual([
      { name: '', fields: ['access_token_lifetime', 'server_client_id'] },
      { name: '', fields: ['server_client_id', 'scopes'] },
    ]);
  });

  it('validation failures exit 2 with one line naming each option and its problem, and change nothing', async () => {
    const line = usageErrorLine(
      await cli.run([
        'resources',
        'create',
        '--uri',
        'https://bad.example.com/#frag',
        '--scopes',
        'read delete',
        '--token-format',
        'jwt',
        '--access-token-lifetime',
        '15m',
        '--server-client-id',
        'nobody',
      ]),
    );
    expect(line).toContain('--uri: URI cannot contain a fragment.');
    expect(line).toContain('--scopes: Scopes has "delete", which is not a scope of this server');
    expect(line).toContain(`--token-format: ${JWT_NEEDS_KEYS}`);
    expect(line).toContain('--access-token-lifetime: Access token lifetime must be a whole number of seconds from 60 to 86400');
    expect(line).toContain('--server-client-id: Server client ID must be the client_id (UID) of a registered application');
    // A negative number is the option's value, refused by the option's own rule (not parseArgs' "ambiguous").
    const negative = ['resources', 'create', '--uri', 'https://negative.example.com', '--scopes', 'read', '--access-token-lifetime', '-5'];
    expect(usageErrorLine(await cli.run(negative))).toBe(
      'oauth-service: --access-token-lifetime: Access token lifetime must be a whole number of seconds from 60 to 86400 (leave it empty for the server default)',
    );
    expect(usageErrorLine(await cli.run(['resources', 'create', '--scopes', 'read']))).toBe('oauth-service: missing required option --uri');
    expect(usageErrorLine(await cli.run(['resources', 'create', '--uri', 'https://x.example.com']))).toBe(
      'oauth-service: missing required option --scopes',
    );
    await cli.json(['resources', 'create', '--uri', 'https://dup.example.com', '--scopes', 'read']);
    expect(usageErrorLine(await cli.run(['resources', 'create', '--uri', 'https://dup.example.com', '--scopes', 'write']))).toBe(
      'oauth-service: --uri: URI is already registered',
    );
    expect(usageErrorLine(await cli.run(['resources', 'update', 'https://dup.example.com']))).toMatch(/^oauth-service: nothing to update/);
    expect(usageErrorLine(await cli.run(['resources', 'show', 'https://nowhere.example.com']))).toBe(
      'oauth-service: no resource with id or URI https://nowhere.example.com',
    );
    expect(usageErrorLine(await cli.run(['resources', 'frobnicate']))).toContain("unknown subcommand 'resources frobnicate'");
    expect((await cli.json(['resources', 'list'])).map((resource: { uri: string }) => resource.uri)).not.toContain(
      'https://bad.example.com/#frag',
    );
  });

  it('RFC 9396: --authorization-details-types, -schema TYPE=FILE and -consent TYPE[:LANG]=TEXT declare the types; a bad schema is refused', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'rar-cli-'));
    const schemaFile = join(folder, 'payment.json');
    writeFileSync(schemaFile, JSON.stringify({ type: 'object', required: ['creditorName'] }));
    const created = await cli.json([
      'resources',
      'create',
      '--uri',
      'https://bank.example.com',
      '--scopes',
      'read',
      '--authorization-details-types',
      'payment_initiation,account_information',
      '--authorization-details-schema',
      `payment_initiation=${schemaFile}`,
      '--authorization-details-consent',
      'payment_initiation=Pay {{creditorName}}',
      '--authorization-details-consent',
      'account_information:de=Konten lesen',
    ]);
    expect(created.authorization_details_types).toEqual({
      payment_initiation: { schema: { type: 'object', required: ['creditorName'] }, consent: 'Pay {{creditorName}}' },
      account_information: { schema: null, consent: { de: 'Konten lesen' } },
    });
    // An update names the whole list of types; a type's schema and text are kept unless given.
    const updated = await cli.json([
      'resources',
      'update',
      'https://bank.example.com',
      '--authorization-details-types',
      'payment_initiation',
    ]);
    expect(updated.authorization_details_types).toEqual({ payment_initiation: created.authorization_details_types.payment_initiation });

    writeFileSync(schemaFile, JSON.stringify({ type: 'no-such-type' }));
    const refused = await cli.run([
      'resources',
      'update',
      'https://bank.example.com',
      '--authorization-details-schema',
      `payment_initiation=${schemaFile}`,
    ]);
    expect(usageErrorLine(refused)).toMatch(
      /^oauth-service: --authorization-details-types: The JSON Schema of payment_initiation is not a valid schema: /,
    );
    // A language's text after one for every language (in either order) replaces it in that language only.
    const both = await cli.json([
      'resources',
      'update',
      'https://bank.example.com',
      '--authorization-details-consent',
      'payment_initiation:de=Zahle {{creditorName}}',
      '--authorization-details-consent',
      'payment_initiation=Pay {{creditorName}}',
    ]);
    expect(both.authorization_details_types.payment_initiation.consent).toEqual({
      en: 'Pay {{creditorName}}',
      de: 'Zahle {{creditorName}}',
      fr: 'Pay {{creditorName}}',
      es: 'Pay {{creditorName}}',
      ja: 'Pay {{creditorName}}',
    });
    const unknown = await cli.run(['resources', 'update', 'https://bank.example.com', '--authorization-details-consent', 'transfer=Send']);
    expect(usageErrorLine(unknown)).toBe(
      'oauth-service: --authorization-details-consent: transfer is not one of the types (--authorization-details-types payment_initiation)',
    );
    expect((await cli.run(['resources', 'show', 'https://bank.example.com'])).stdout).toContain(
      'authorization_details types: payment_initiation',
    );
    rmSync(folder, { recursive: true, force: true });
  });

  it('resources delete unregisters it; --help answers with the usage', async () => {
    const created = await cli.json(['resources', 'create', '--uri', 'urn:example:gone', '--scopes', 'read']);
    expect(await cli.json(['resources', 'delete', 'urn:example:gone'])).toEqual({ deleted: true, id: created.id, uri: 'urn:example:gone' });
    expect(usageErrorLine(await cli.run(['resources', 'delete', 'urn:example:gone']))).toContain('no resource with id or URI');
    const help = await cli.run(['resources', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('create --uri U --scopes "a b"');
    expect((await cli.run(['--help'])).stdout).toContain('resources create|list|show|update|delete');
  });

  it('apps create|update --access-token-format: opaque is stored and printed; jwt needs openid.enabled', async () => {
    const app = await cli.json(['apps', 'create', '--name', 'Formats', '--redirect-uri', 'https://f.example.com/cb']);
    expect(app.access_token_format).toBe('opaque');
    expect(usageErrorLine(await cli.run(['apps', 'update', app.uid, '--access-token-format', 'jwt']))).toBe(
      `oauth-service: ${JWT_NEEDS_KEYS}`,
    );
    expect(usageErrorLine(await cli.run(['apps', 'update', app.uid, '--access-token-format', 'xml']))).toBe(
      'oauth-service: Access token format must be opaque or jwt, not "xml"',
    );
    expect(await cli.json(['apps', 'update', app.uid, '--access-token-format', 'opaque'])).toMatchObject({ access_token_format: 'opaque' });
    expect((await cli.run(['apps', 'show', app.uid])).stdout).toContain('access tokens:  opaque');
  });
});
