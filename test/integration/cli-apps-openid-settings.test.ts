import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// Issue 16's per-application settings through `oauth-service apps`: --post-logout-redirect-uri (repeatable),
// --id-token-signed-response-alg, --userinfo-signed-response-alg; an empty value clears one.

const REDIRECT = ['--redirect-uri', 'https://rp.example/cb'];

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service apps OpenID Connect settings (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  const stored = (uid: string) => cli.withDeps((deps) => deps.stores.applications.findByUid(uid));
  /** `apps create --name <name> --redirect-uri ... <options> --json`: exit code 0, and the output parsed. */
  const createdJson = async (name: string, options: string[] = []) => {
    const result = await cli.run(['apps', 'create', '--name', name, ...REDIRECT, ...options, '--json']);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout);
  };

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps create stores the three settings and --json prints them; without them: [], null, null', async () => {
    const created = await createdJson('RP', [
      '--post-logout-redirect-uri',
      'https://rp.example/bye',
      '--post-logout-redirect-uri',
      'http://127.0.0.1:8080/bye',
      '--id-token-signed-response-alg',
      'ES256',
      '--userinfo-signed-response-alg',
      'EdDSA',
    ]);
    expect(created).toMatchObject({
      post_logout_redirect_uris: ['https://rp.example/bye', 'http://127.0.0.1:8080/bye'],
      id_token_signed_response_alg: 'ES256',
      userinfo_signed_response_alg: 'EdDSA',
    });
    expect(await stored(created.uid)).toMatchObject({
      postLogoutRedirectUris: ['https://rp.example/bye', 'http://127.0.0.1:8080/bye'],
      idTokenSignedResponseAlg: 'ES256',
      userinfoSignedResponseAlg: 'EdDSA',
    });

    const plain = await createdJson('Plain');
    expect(plain).toMatchObject({ post_logout_redirect_uris: [], id_token_signed_response_alg: null, userinfo_signed_response_alg: null });
  });

  it('apps show prints them as text and as JSON, and apps list --json carries them', async () => {
    const { uid } = await createdJson('Shown', [
      '--post-logout-redirect-uri',
      'https://rp.example/one',
      '--post-logout-redirect-uri',
      'https://rp.example/two',
      '--userinfo-signed-response-alg',
      'RS256',
    ]);
    const text = await cli.run(['apps', 'show', uid]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('  logout URIs:    https://rp.example/one\n                  https://rp.example/two\n');
    expect(text.stdout).toContain('  ID token alg:   RS256 (the default)\n');
    expect(text.stdout).toContain('  UserInfo:       signed JWT, RS256\n');

    const json = JSON.parse((await cli.run(['apps', 'show', uid, '--json'])).stdout);
    expect(json).toMatchObject({
      post_logout_redirect_uris: ['https://rp.example/one', 'https://rp.example/two'],
      id_token_signed_response_alg: null,
      userinfo_signed_response_alg: 'RS256',
    });
    const listed = JSON.parse((await cli.run(['apps', 'list', '--json'])).stdout);
    expect(listed.find((application: { uid: string }) => application.uid === uid)).toMatchObject(json);
  });

  it('apps update changes only the settings given, and an empty value clears one', async () => {
    const { uid } = await createdJson('Updated', [
      '--post-logout-redirect-uri',
      'https://rp.example/bye',
      '--id-token-signed-response-alg',
      'EdDSA',
    ]);
    // Only the settings: enough for "something to update".
    const set = await cli.run(['apps', 'update', uid, '--userinfo-signed-response-alg', 'ES256', '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      name: 'Updated',
      post_logout_redirect_uris: ['https://rp.example/bye'],
      id_token_signed_response_alg: 'EdDSA',
      userinfo_signed_response_alg: 'ES256',
    });

    const renamed = await cli.run(['apps', 'update', uid, '--name', 'Renamed', '--json']);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ name: 'Renamed', id_token_signed_response_alg: 'EdDSA' });

    const cleared = await cli.run([
      'apps',
      'update',
      uid,
      '--post-logout-redirect-uri',
      '',
      '--id-token-signed-response-alg',
      '',
      '--userinfo-signed-response-alg=',
      '--json',
    ]);
    expect(cleared.code).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({
      name: 'Renamed',
      post_logout_redirect_uris: [],
      id_token_signed_response_alg: null,
      userinfo_signed_response_alg: null,
    });
    expect(await stored(uid)).toMatchObject({
      postLogoutRedirectUris: [],
      idTokenSignedResponseAlg: null,
      userinfoSignedResponseAlg: null,
    });
  });

  it('invalid settings are one line on stderr, exit code 2, and nothing is written', async () => {
    const before = await cli.applicationCount();
    const cases: Array<[string[], string]> = [
      [['--post-logout-redirect-uri', 'https://rp.example/bye#x'], 'oauth-service: Post-logout redirect URI cannot contain a fragment.'],
      [['--post-logout-redirect-uri', 'http://rp.example/bye'], 'oauth-service: Post-logout redirect URI must be an HTTPS/SSL URI.'],
      [['--post-logout-redirect-uri', 'file:///etc/passwd'], 'oauth-service: Post-logout redirect URI is forbidden by the server.'],
      // A script scheme is one message: it was also said to lack a scheme, joined with "; ".
      [['--post-logout-redirect-uri', 'javascript:x'], 'oauth-service: Post-logout redirect URI is forbidden by the server.'],
      [
        ['--id-token-signed-response-alg', 'HS256'],
        'oauth-service: ID token signing algorithm must be RS256, ES256 or EdDSA, not "HS256" (leave it blank for RS256).',
      ],
      [
        ['--userinfo-signed-response-alg', 'none'],
        'oauth-service: UserInfo signing algorithm must be RS256, ES256 or EdDSA, not "none" (leave it blank for plain JSON).',
      ],
    ];
    for (const [options, message] of cases) {
      const result = await cli.run(['apps', 'create', '--name', 'Bad', ...REDIRECT, ...options]);
      expect(usageErrorLine(result), options.join(' ')).toBe(message);
      expect(result.stdout).toBe('');
    }
    expect(await cli.applicationCount()).toBe(before);

    const { uid } = await createdJson('Kept');
    const update = await cli.run(['apps', 'update', uid, '--name', 'Not kept', '--id-token-signed-response-alg', 'rs256']);
    expect(usageErrorLine(update)).toContain('ID token signing algorithm must be RS256, ES256 or EdDSA, not "rs256"');
    expect(await stored(uid)).toMatchObject({ name: 'Kept', idTokenSignedResponseAlg: null });
  });

  it('apps --help documents the options and how to clear them', async () => {
    const help = await cli.run(['apps', '--help']);
    expect(help.stdout).toContain('--post-logout-redirect-uri U');
    expect(help.stdout).toContain('--id-token-signed-response-alg RS256|ES256|EdDSA');
    expect(help.stdout).toContain('--userinfo-signed-response-alg RS256|ES256|EdDSA');
    expect(help.stdout).toContain('an empty value "" clears one');
  });
});
