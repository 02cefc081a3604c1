import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionParams, clientAssertion, clientKey, jwksOf, type ClientKey } from '../helpers/client-assertions.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { createClient } from '../helpers/factories.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
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

  it('the form: private_key_jwt without keys, private keys, both jwks and jwks_uri, or a method of the other client type are sent back with the reason', async () => {
    const admin = new AdminSession(server.app);
    const cases: Array<[Record<string, string>, string]> = [
      [{ token_endpoint_auth_method: 'private_key_jwt' }, 'The private_key_jwt method needs the public keys: jwks or jwks_uri.'],
      [{ jwks: JSON.stringify({ keys: [{ ...key.publicJwk, d: 'x' }] }) }, 'The jwks must hold public keys only (a private key was sent).'],
      [{ jwks: '{not json' }, 'The jwks is not valid JSON.'],
      [
        { jwks: `{"keys":[{"kty":"EC","crv":"P-256","x":${'['.repeat(40)}${']'.repeat(40)}}]}` },
        'The jwks is nested too deeply (at most 32 levels of objects and arrays).',
      ],
      [{ jwks: JSON.stringify(jwksOf(key)), jwks_uri: 'https://rp.example/jwks' }, 'Give jwks or jwks_uri, not both (RFC 7591 section 2).'],
      [{ jwks_uri: 'ftp://rp.example/jwks' }, 'The jwks_uri must be an https URL.'],
      [{ jwks_uri: '/jwks' }, 'The jwks_uri must be an absolute URL.'],
      [{ jwks_uri: `https://rp.example/${'k'.repeat(2000)}` }, 'The jwks_uri is too long (maximum is 2000 characters).'],
      [{ jwks_uri: 'https://user:pass@rp.example/jwks' }, 'The jwks_uri must not carry credentials or a fragment.'],
      [{ jwks_uri: 'https://rp.example/jwks#current' }, 'The jwks_uri must not carry credentials or a fragment.'],
      // Beside its field, without the field's name: "Must be one of ...".
      [
        { token_endpoint_auth_method: 'tls_client_auth' },
        'one of none, client_secret_basic, client_secret_post, private_key_jwt, client_secret_jwt.',
      ],
      // RFC 7591 section 2: none is a public client's method, and a public client has nothing else to authenticate with.
      [{ confidential: '0', token_endpoint_auth_method: 'client_secret_basic' }, 'A public client cannot use client_secret_basic.'],
      [{ token_endpoint_auth_method: 'none' }, 'A confidential client cannot use none: it authenticates (make it public to use none).'],
      // The fetcher would refuse the address at the first sign-in (allowPrivateAddresses is off): said now.
      [{ jwks_uri: 'https://169.254.169.254/keys' }, 'The jwks_uri must not point at a loopback, private or link-local host.'],
      // A NUL made the insert fail with a 500 (PostgreSQL text cannot hold one).
      [{ jwks_uri: 'https://rp.example/jwks\u0000' }, 'The jwks_uri must not contain control characters.'],
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

  it('JSON: jwks sent back as the object the API answers with is taken, as JSON text is', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { ...BASE, token_endpoint_auth_method: 'private_key_jwt', jwks: jwksOf(key) },
    });
    expect(created.statusCode).toBe(201);
    const shown = created.json();
    expect(shown.jwks).toEqual(jwksOf(key));
    const other = await clientKey('ES256');
    const updated = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${shown.id}`,
      headers: JSON_BODY,
      payload: { ...shown, jwks: jwksOf(other) },
    });
    expect(updated.statusCode).toBe(200);
    expect(JSON.parse((await stored(shown.id)).jwks!)).toEqual(jwksOf(other));
    const privateKey = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${shown.id}`,
      headers: JSON_BODY,
      payload: { jwks: { keys: [{ ...other.publicJwk, d: 'x' }] } },
    });
    expect(privateKey.statusCode).toBe(422);
    expect(privateKey.json()).toEqual({ errors: ['The jwks must hold public keys only (a private key was sent).'] });
    // Nested thousands deep: made text for the domain's check, it overflowed the stack (a 500); now refused by name.
    const deep = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${shown.id}`,
      headers: JSON_BODY,
      payload: `{"jwks":{"keys":[{"kty":"EC","x":${'['.repeat(6000)}${']'.repeat(6000)}}]}}`,
    });
    expect(deep.statusCode).toBe(422);
    expect(deep.json()).toEqual({ errors: ['The jwks is nested too deeply (at most 32 levels of objects and arrays).'] });
    expect(JSON.parse((await stored(shown.id)).jwks!)).toEqual(jwksOf(other));
  });

  it('JSON: jwks_uri and the method round-trip without a secret; clearing the method issues one, shown once', async () => {
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
    const { id, uid } = created.json();
    expect(created.json()).not.toHaveProperty('secret');
    expect((await stored(id)).secret).toBeNull();
    const cleared = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${id}`,
      headers: JSON_BODY,
      payload: { token_endpoint_auth_method: null, jwks_uri: null },
    });
    expect(cleared.json()).toMatchObject({ token_endpoint_auth_method: null, jwks_uri: null, secret: expect.stringMatching(/^\S{43}$/) });
    const { secret } = cleared.json();
    expect((await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(uid, secret))).statusCode).toBe(200);
    const again = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${id}`,
      headers: JSON_BODY,
      payload: { name: 'Renamed' },
    });
    expect(again.json()).not.toHaveProperty('secret');
    expect(applicationIdFrom(created.headers.location)).toBe(id);
  });

  it('JSON: a private_key_jwt application gets no secret; its rotate_secret is 422 with the reason; a secret sent is refused', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { ...BASE, token_endpoint_auth_method: 'private_key_jwt', jwks: JSON.stringify(jwksOf(key)) },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).not.toHaveProperty('secret');
    const { id, uid } = created.json();
    expect(await stored(id)).toMatchObject({ confidential: true, secret: null });
    const rotated = await server.app.inject({
      method: 'POST',
      url: `/oauth/applications/${id}/rotate_secret`,
      headers: JSON_BODY,
      payload: {},
    });
    expect(rotated.statusCode).toBe(422);
    expect(rotated.json()).toEqual({ errors: ['A private_key_jwt client has no secret to rotate: it authenticates with its key'] });
    expect((await stored(id)).secret).toBeNull();
    // No secret compares equal to the missing one: Basic and the body with an empty or any secret are invalid_client.
    for (const secret of ['', 'x'.repeat(43)]) {
      expect((await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(uid, secret))).statusCode).toBe(401);
      const inBody = await tokenRequest(server.app, { grant_type: 'client_credentials', client_id: uid, client_secret: secret });
      expect(inBody.statusCode).toBe(401);
    }
    const token = await tokenRequest(server.app, {
      grant_type: 'client_credentials',
      ...assertionParams(await clientAssertion(uid, key, issuer)),
    });
    expect(token.statusCode).toBe(200);
  });

  it('JSON: a secret client switched to private_key_jwt loses its secret; switched back it gets a new one, shown once', async () => {
    const client = await createClient(server.deps, { name: 'Switching' });
    const patch = (payload: object) =>
      server.app.inject({ method: 'PATCH', url: `/oauth/applications/${client.application.id}`, headers: JSON_BODY, payload });
    const toKey = await patch({ token_endpoint_auth_method: 'private_key_jwt', jwks: JSON.stringify(jwksOf(key)) });
    expect(toKey.statusCode).toBe(200);
    expect(toKey.json()).not.toHaveProperty('secret');
    expect((await stored(client.application.id)).secret).toBeNull();
    expect((await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(client.uid, client.secret!))).statusCode).toBe(401);
    const toSecret = await patch({ token_endpoint_auth_method: 'client_secret_post', jwks: null });
    expect(toSecret.statusCode).toBe(200);
    const { secret } = toSecret.json();
    expect(secret).toMatch(/^\S{43}$/);
    expect(secret).not.toBe(client.secret);
    const token = await tokenRequest(server.app, { grant_type: 'client_credentials', client_id: client.uid, client_secret: secret });
    expect(token.statusCode).toBe(200);
  });

  it('the show page of a private_key_jwt application: no secret, no rotate button; the rotate page and POST answer with the reason', async () => {
    const admin = new AdminSession(server.app);
    const { id, show } = await admin.createThroughForm('applications', {
      ...BASE,
      confidential: ['0', '1'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: JSON.stringify(jwksOf(key)),
    });
    expect(textOf(show.body, 'secret')).toBe('None (it authenticates with its key, private_key_jwt)');
    expect(show.body).not.toContain('Copy this secret now');
    expect(show.body).not.toContain('/rotate_secret');
    const asked = await admin.get(`/oauth/applications/${id}/rotate_secret`);
    expect(asked.statusCode).toBe(302);
    expect((await admin.follow(asked)).body).toContain('This application has no secret to rotate.');
    const rotated = await admin.submit(`/oauth/applications/${id}/rotate_secret`, {});
    expect(rotated.statusCode).toBe(302);
    expect((await admin.follow(rotated)).body).toContain('A private_key_jwt client has no secret to rotate: it authenticates with its key');
    expect((await stored(id)).secret).toBeNull();
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

  it('a private_key_jwt application has no secret: none printed or stored, apps show says so, rotate-secret and --secret exit 2', async () => {
    const key = await clientKey('ES256');
    const file = join(folder, 'key-only.json');
    writeFileSync(file, JSON.stringify(jwksOf(key)));
    const keyArgs = ['--token-endpoint-auth-method', 'private_key_jwt', '--jwks-file', file];
    const created = await cli.run(['apps', 'create', '--name', 'Key only', ...REDIRECT, ...keyArgs]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).not.toMatch(/secret/);
    const uid = /uid: +(\S+)/.exec(created.stdout)![1]!;
    const storedSecret = () => cli.withDeps(async (deps) => (await deps.stores.applications.findByUid(uid))!.secret);
    expect(await storedSecret()).toBeNull();
    expect((await cli.json(['apps', 'create', '--name', 'Key only JSON', ...REDIRECT, ...keyArgs])).secret).toBeNull();
    expect(await cli.stdout(['apps', 'show', uid])).toContain('\n  secret:         none: authenticates with private_key_jwt\n');

    const rotated = await cli.run(['apps', 'rotate-secret', uid]);
    expect({ code: rotated.code, line: usageErrorLine(rotated), stdout: rotated.stdout }).toEqual({
      code: 2,
      line: 'oauth-service: A private_key_jwt client has no secret to rotate: it authenticates with its key',
      stdout: '',
    });
    const before = await cli.applicationCount();
    const imported = await cli.run(['apps', 'create', '--name', 'X', ...REDIRECT, ...keyArgs, '--secret', 'y'.repeat(40)]);
    expect({ code: imported.code, line: usageErrorLine(imported) }).toEqual({
      code: 2,
      line: 'oauth-service: Secret cannot be set for a private_key_jwt client: it authenticates with its key',
    });
    expect(await cli.applicationCount()).toBe(before);
  });

  it('apps update to a secret method prints a new secret once; back to private_key_jwt the secret is dropped', async () => {
    const key = await clientKey('ES256');
    const file = join(folder, 'switching.json');
    writeFileSync(file, JSON.stringify(jwksOf(key)));
    const keyArgs = ['--token-endpoint-auth-method', 'private_key_jwt', '--jwks-file', file];
    const { uid } = await cli.json(['apps', 'create', '--name', 'Switching', ...REDIRECT, ...keyArgs]);
    const toSecret = await cli.stdout(['apps', 'update', uid, '--token-endpoint-auth-method', 'client_secret_basic', '--jwks-file', '']);
    const secret = /\n {2}secret: +(\S{43})\n/.exec(toSecret)?.[1];
    expect(secret).toBeDefined();
    expect(toSecret).toContain('The secret is shown only this once');
    const storedSecret = () => cli.withDeps(async (deps) => (await deps.stores.applications.findByUid(uid))!.secret);
    expect(await storedSecret()).toBe(sha256Hex(secret!));
    expect(await cli.stdout(['apps', 'show', uid])).toContain(
      `  secret:         hashed, not shown (a new one: 'apps rotate-secret ${uid}')\n`,
    );
    const back = await cli.json(['apps', 'update', uid, ...keyArgs]);
    expect(back).not.toHaveProperty('secret');
    expect(await storedSecret()).toBeNull();
  });
});
