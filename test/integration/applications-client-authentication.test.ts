import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionParams, clientAssertion, clientKey, jwksOf, type ClientKey } from '../helpers/client-assertions.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { createClient } from '../helpers/factories.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, applicationIdFrom, buildAdminServer, JSON_BODY, textOf } from './applications-support.js';

// Issue 34 item 1: an application's token_endpoint_auth_method and its public keys (jwks or jwks_uri) where
// applications are managed: the admin form (CSRF as every form), the JSON API, and `apps` in the CLI.

const BASE = { name: 'Key client', redirect_uri: 'https://rp.example/cb' };

describe(`/oauth/applications client authentication settings (${backend})`, () => {
  let server: TestServer;
  let key: ClientKey;
  let issuer: string;
  beforeAll(async () => {
    server = await buildAdminServer({ grantFlows: ['authorization_code', 'client_credentials'] });
    key = await clientKey('ES256');
    issuer = server.config.baseUrl.replace(/\/+$/, '');
  });
  afterAll(() => server.close());

  const stored = async (id: number) => (await server.deps.stores.applications.findById(id))!;

  it('the form: private_key_jwt with inline keys is stored and shown; the client gets tokens with its key, not its secret', async () => {
    const admin = new AdminSession(server.app);
    const page = await admin.get('/oauth/applications/new');
    expect(page.body).toContain('<select id="application_token_endpoint_auth_method" name="token_endpoint_auth_method"');
    const jwks = JSON.stringify(jwksOf(key));
    const { id, show } = await admin.createThroughForm('applications', {
      ...BASE,
      confidential: ['0', '1'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks,
      jwks_uri: '',
    });
    expect(textOf(show.body, 'token_endpoint_auth_method')).toBe('private_key_jwt');
    expect(textOf(show.body, 'client_keys')).toBe('1 key inline');
    const application = await stored(id);
    expect(application).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: null });
    expect(JSON.parse(application.jwks!)).toEqual(jwksOf(key));
    const edit = await admin.get(`/oauth/applications/${id}/edit`);
    expect(edit.body).toContain('<option value="private_key_jwt" selected>');

    const token = await tokenRequest(server.app, {
      grant_type: 'client_credentials',
      ...assertionParams(await clientAssertion(application.uid, key, issuer)),
    });
    expect(token.statusCode).toBe(200);
  });

  it('the form: private_key_jwt without keys, private keys, or both jwks and jwks_uri are sent back with the reason', async () => {
    const admin = new AdminSession(server.app);
    const cases: Array<[Record<string, string>, string]> = [
      [{ token_endpoint_auth_method: 'private_key_jwt' }, 'The private_key_jwt method needs the public keys: jwks or jwks_uri.'],
      [{ jwks: JSON.stringify({ keys: [{ ...key.publicJwk, d: 'x' }] }) }, 'The jwks must hold public keys only (a private key was sent).'],
      [{ jwks: '{not json' }, 'The jwks is not valid JSON.'],
      [{ jwks: JSON.stringify(jwksOf(key)), jwks_uri: 'https://rp.example/jwks' }, 'Give jwks or jwks_uri, not both (RFC 7591 section 2).'],
      [{ jwks_uri: 'ftp://rp.example/jwks' }, 'The jwks_uri must be an https URL.'],
      // hashApplicationSecrets is on (the default): HS256 would need the secret itself.
      [
        { token_endpoint_auth_method: 'client_secret_jwt' },
        'The client_secret_jwt method needs client secrets stored as they are (hashApplicationSecrets: false).',
      ],
    ];
    for (const [fields, message] of cases) {
      await admin.get('/oauth/applications/new');
      const page = await admin.submit('/oauth/applications', { ...BASE, confidential: ['0', '1'], ...fields });
      expect({ fields, status: page.statusCode, hasMessage: page.body.includes(message) }).toEqual({
        fields,
        status: 422,
        hasMessage: true,
      });
    }
  });

  it('a form POST that sets private_key_jwt without the CSRF token is 403 and changes nothing', async () => {
    const client = await createClient(server.deps);
    // The admin's session cookie with a forged token in place of the one its form holds.
    const response = await new AdminSession(server.app).submit(`/oauth/applications/${client.application.id}`, {
      _method: 'patch',
      ...BASE,
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: JSON.stringify(jwksOf(key)),
      _csrf: 'forged',
    });
    expect(response.statusCode).toBe(403);
    expect(await stored(client.application.id)).toMatchObject({ tokenEndpointAuthMethod: null, jwks: null });
    expect((await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!))).statusCode).toBe(200);
  });

  it('JSON: jwks_uri and the method round-trip; clearing the method gives the client its secret back', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { ...BASE, token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://rp.example/jwks.json' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://rp.example/jwks.json',
      jwks: null,
    });
    const { id, uid, secret } = created.json();
    expect((await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(uid, secret))).statusCode).toBe(401);
    const cleared = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${id}`,
      headers: JSON_BODY,
      payload: { token_endpoint_auth_method: null, jwks_uri: null },
    });
    expect(cleared.json()).toMatchObject({ token_endpoint_auth_method: null, jwks_uri: null });
    expect((await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(uid, secret))).statusCode).toBe(200);
    expect(applicationIdFrom(created.headers.location)).toBe(id);
  });
});

describe(`oauth-service apps --token-endpoint-auth-method, --jwks-file, --jwks-uri (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  let folder: string;
  const REDIRECT = ['--redirect-uri', 'https://rp.example/cb'];
  beforeAll(async () => {
    cli = await createCliHarness();
    folder = mkdtempSync(join(tmpdir(), 'jwks-'));
  });
  afterAll(async () => {
    await cli.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('create with a JWK Set file, then update to a jwks_uri; a bad file or client_secret_jwt with hashed secrets: exit 2', async () => {
    const key = await clientKey('EdDSA');
    const file = join(folder, 'keys.json');
    writeFileSync(file, JSON.stringify(jwksOf(key)));
    const created = await cli.run([
      'apps',
      'create',
      '--name',
      'Machine',
      ...REDIRECT,
      '--token-endpoint-auth-method',
      'private_key_jwt',
      '--jwks-file',
      file,
      '--json',
    ]);
    expect(created.code).toBe(0);
    const shown = JSON.parse(created.stdout);
    expect(shown).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks: jwksOf(key), jwks_uri: null });

    const updated = await cli.run(['apps', 'update', shown.uid, '--jwks-file', '', '--jwks-uri', 'https://rp.example/jwks.json', '--json']);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ jwks: null, jwks_uri: 'https://rp.example/jwks.json' });

    const before = await cli.applicationCount();
    const missing = await cli.run(['apps', 'create', '--name', 'X', ...REDIRECT, '--jwks-file', join(folder, 'none.json')]);
    expect({ code: missing.code, line: usageErrorLine(missing) }).toEqual({ code: 2, line: expect.stringContaining('--jwks-file') });
    const hashed = await cli.run(['apps', 'create', '--name', 'X', ...REDIRECT, '--token-endpoint-auth-method', 'client_secret_jwt']);
    expect(hashed.code).toBe(2);
    expect(hashed.stderr).toContain(
      'The client_secret_jwt method needs client secrets stored as they are (hashApplicationSecrets: false).',
    );
    expect(await cli.applicationCount()).toBe(before);
  });
});
