import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { clientKey, jwksOf } from '../helpers/client-assertions.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, applicationIdFrom, buildAdminServer, JSON_BODY, textOf } from './applications-support.js';

// Issue 36 items 2, 3 and 5 where clients are made: profile (none|fapi2), require_signed_request_object and
// authorization_signed_response_alg in the admin JSON API and form, and `apps` in the CLI. What they do at the
// endpoints, and at RFC 7591 registration, is fapi2-profile.test.ts's.

const CALLBACK = 'https://rp.example/cb';

describe(`the fapi2 profile and the request security settings per client (${backend})`, () => {
  let server: TestServer;
  let jwks: string;
  beforeAll(async () => {
    server = await buildAdminServer();
    jwks = JSON.stringify(jwksOf(await clientKey('ES256')));
  });
  afterAll(() => server.close());

  const create = (payload: object) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { name: 'Bank', redirect_uri: CALLBACK, ...payload },
    });

  it('the JSON API: none by default; fapi2 with private_key_jwt; a secret client refused naming the rule, and so is a change to one', async () => {
    const plain = await create({});
    expect(plain.json()).toMatchObject({ profile: 'none', require_signed_request_object: false, authorization_signed_response_alg: null });
    const refused = await create({ profile: 'fapi2' });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('profile fapi2 requires token_endpoint_auth_method private_key_jwt (mutual TLS is not supported).');
    const fapi2 = await create({
      profile: 'fapi2',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks,
      require_signed_request_object: true,
      authorization_signed_response_alg: 'ES256',
    });
    expect(fapi2.statusCode, fapi2.body).toBe(201);
    expect(fapi2.json()).toMatchObject({
      profile: 'fapi2',
      require_signed_request_object: true,
      authorization_signed_response_alg: 'ES256',
    });
    const toSecret = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${fapi2.json().id}`,
      headers: JSON_BODY,
      payload: { token_endpoint_auth_method: 'client_secret_basic', jwks: '' },
    });
    expect(toSecret.statusCode).toBe(422);
    expect(toSecret.body).toContain('profile fapi2 requires token_endpoint_auth_method private_key_jwt');
    const toPublic = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${fapi2.json().id}`,
      headers: JSON_BODY,
      payload: { confidential: false },
    });
    expect(toPublic.statusCode).toBe(422);
    expect(toPublic.body).toContain('profile fapi2 requires a confidential client.');
  });

  it('require_signed_request_object needs keys to verify with: refused on a keyless client, and so is removing the keys', async () => {
    const keyless = await create({ require_signed_request_object: true });
    expect(keyless.statusCode).toBe(422);
    expect(keyless.json().errors).toEqual([
      'Require signed request object needs the public keys its request objects are verified with: set jwks or jwks_uri.',
    ]);
    const keyed = await create({ require_signed_request_object: true, jwks });
    expect(keyed.statusCode, keyed.body).toBe(201);
    const removeKeys = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${keyed.json().id}`,
      headers: JSON_BODY,
      payload: { jwks: '' },
    });
    expect(removeKeys.statusCode).toBe(422);
    expect(removeKeys.body).toContain('Require signed request object needs the public keys');
  });

  it('the admin form: a profile select, the checkbox and the JARM algorithm; stored and shown', async () => {
    const admin = new AdminSession(server.app);
    const page = await admin.get('/oauth/applications/new');
    expect(page.body).toContain('<option value="fapi2">FAPI 2.0 Security Profile (fapi2)</option>');
    expect(page.body).toContain('name="require_signed_request_object" value="1"');
    expect(page.body).toContain('name="authorization_signed_response_alg"');
    const created = await admin.submit('/oauth/applications', {
      name: 'Bank form',
      redirect_uri: CALLBACK,
      confidential: ['0', '1'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks,
      profile: 'fapi2',
      require_signed_request_object: ['0', '1'],
      authorization_signed_response_alg: 'EdDSA',
    });
    expect(created.statusCode, created.body.slice(0, 500)).toBe(302);
    const stored = (await server.deps.stores.applications.findById(applicationIdFrom(created.headers.location)))!;
    expect(stored).toMatchObject({ profile: 'fapi2', requireSignedRequestObject: true, authorizationSignedResponseAlg: 'EdDSA' });
    const shown = (await admin.follow(created)).body;
    expect(textOf(shown, 'profile')).toBe('FAPI 2.0 Security Profile (fapi2)');
    expect(textOf(shown, 'require_signed_request_object')).toBe('Required');
    // The profile requires DPoP and PAR (fapi2-profile.ts) although the stored settings are off: the page says so.
    expect(stored).toMatchObject({ dpopBoundAccessTokens: false, requirePushedAuthorizationRequests: false });
    expect(textOf(shown, 'dpop_bound_access_tokens')).toBe('Required (profile fapi2)');
    expect(textOf(shown, 'require_pushed_authorization_requests')).toBe('Required (profile fapi2)');
    expect(textOf(shown, 'authorization_signed_response_alg')).toBe('EdDSA');
  });
});

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service apps --profile fapi2 (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps create --profile fapi2 needs private_key_jwt (exit 2, naming the rule); with it, apps show prints the profile', async () => {
    const refused = await cli.run(['apps', 'create', '--name', 'Bank', '--redirect-uri', CALLBACK, '--profile', 'fapi2']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('profile fapi2 requires token_endpoint_auth_method private_key_jwt');
    const jwksFile = join(temporaryFolder('fapi2-jwks'), 'jwks.json');
    writeFileSync(jwksFile, JSON.stringify(jwksOf(await clientKey('ES256'))));
    const args = ['--token-endpoint-auth-method', 'private_key_jwt', '--jwks-file', jwksFile, '--profile', 'fapi2'];
    const created = JSON.parse((await cli.run(['apps', 'create', '--name', 'Bank', '--redirect-uri', CALLBACK, ...args, '--json'])).stdout);
    expect(created.profile).toBe('fapi2');
    const shown = (await cli.run(['apps', 'show', created.uid])).stdout;
    expect(shown).toContain('  profile:        fapi2 (FAPI 2.0 Security Profile)\n');
    // What the profile enforces, not the stored settings (which --json still answers).
    expect(shown).toContain('  DPoP:           required (profile fapi2: DPoP-bound tokens only, RFC 9449)\n');
    expect(shown).toContain('  PAR:            required (profile fapi2: pushed authorization requests only, RFC 9126)\n');
    // FAPI 2.0 Security Profile 5.4: not RS256; keys.algorithms is the default, RS256 alone, so ES256.
    expect(shown).toContain('  ID token alg:   ES256 (profile fapi2: the first of keys.algorithms FAPI 2.0 allows, else ES256)\n');
    expect(shown).toContain('  JARM alg:       ES256 (profile fapi2: the first of keys.algorithms FAPI 2.0 allows, else ES256)\n');
    expect(created).toMatchObject({ dpop_bound_access_tokens: false, require_pushed_authorization_requests: false });
    const updated = JSON.parse(
      (
        await cli.run([
          'apps',
          'update',
          created.uid,
          '--require-signed-request-object',
          '--authorization-signed-response-alg',
          'ES256',
          '--json',
        ])
      ).stdout,
    );
    expect(updated).toMatchObject({ profile: 'fapi2', require_signed_request_object: true, authorization_signed_response_alg: 'ES256' });
    expect((await cli.run(['apps', 'update', created.uid, '--profile', 'none', '--json'])).code).toBe(0);
  });

  it('apply files declare profile, require_signed_request_object and authorization_signed_response_alg; a bad profile is named by its place', async () => {
    const jwks = jwksOf(await clientKey('ES256'));
    const declared = {
      uid: 'fapi2-bank',
      name: 'Bank',
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks,
      profile: 'fapi2',
      require_signed_request_object: true,
      authorization_signed_response_alg: 'EdDSA',
    };
    const applied = await cli.run(['apply', '-f', '-', '--json'], JSON.stringify({ applications: [declared] }));
    expect(applied.code, applied.stderr).toBe(0);
    const shown = JSON.parse((await cli.run(['apps', 'show', 'fapi2-bank', '--json'])).stdout);
    expect(shown).toMatchObject({ profile: 'fapi2', require_signed_request_object: true, authorization_signed_response_alg: 'EdDSA' });
    const { token_endpoint_auth_method: _method, jwks: _jwks, ...withSecret } = declared;
    const refused = await cli.run(['apply', '-f', '-'], JSON.stringify({ applications: [{ ...withSecret, uid: 'fapi2-secret' }] }));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('applications[0].profile: profile fapi2 requires token_endpoint_auth_method private_key_jwt');
  });
});
