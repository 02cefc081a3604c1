import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import { problemsOf } from '../helpers/config-problems.js';

// config identityProviders (issue 37 item 1): a bad entry fails the boot with its key; the client secret comes from
// the environment or a file, never from the JSON.

const entry = { id: 'corp-idp', name: 'Corp', issuer: 'https://idp.example.com', clientId: 'oauth-service' };

describe('config identityProviders', () => {
  it('fills in the defaults of an entry and takes the secret from IDP_<ID>_CLIENT_SECRET', () => {
    const config = loadConfig({ input: { identityProviders: [entry] }, env: { IDP_CORP_IDP_CLIENT_SECRET: 's3cret' } });
    expect(config.identityProviders[0]).toMatchObject({
      ...entry,
      type: 'oidc',
      scopes: ['openid', 'email', 'profile'],
      usePkce: true,
      linkByVerifiedEmail: false,
      createUsers: true,
      timeoutSeconds: 5,
      endUpstreamSession: false,
    });
    expect(config.identityProviders[0]!.clientSecret).toBe('s3cret');
    // Kept out of whatever prints the config (`config check --print`, logs).
    expect(JSON.stringify(config)).not.toContain('s3cret');
    expect(config.authentication.localPasswords).toBe(true);
  });

  it('reads the secret from clientSecretFile', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'idp-')), 'secret');
    writeFileSync(file, 'from-file\n');
    const config = loadConfig({ input: { identityProviders: [{ ...entry, clientSecretFile: file }] } });
    expect(config.identityProviders[0]!.clientSecret).toBe('from-file');
  });

  it('refuses a clientSecret in the JSON, naming the variable to use instead', () => {
    expect(problemsOf({ identityProviders: [{ ...entry, clientSecret: 'oops' }] })).toEqual([
      'identityProviders.0.clientSecret: not in the config file: set the environment variable IDP_CORP_IDP_CLIENT_SECRET or clientSecretFile',
    ]);
  });

  it('names the key of a bad id, a duplicate id and an oauth2 entry without its endpoints', () => {
    const problems = problemsOf({
      identityProviders: [entry, { ...entry, id: 'Corp IdP' }, { ...entry }, { ...entry, id: 'github', type: 'oauth2' }],
    });
    expect(problems).toEqual([
      'identityProviders.1.id: "Corp IdP" must be 1 to 32 of a-z, 0-9 and -',
      'identityProviders.2.id: corp-idp is listed twice',
      'identityProviders.3.authorizationEndpoint: needed by type oauth2 (nothing is discovered)',
      'identityProviders.3.tokenEndpoint: needed by type oauth2 (nothing is discovered)',
      'identityProviders.3.userinfoEndpoint: needed by type oauth2 (nothing is discovered)',
    ]);
  });

  it('refuses authentication.localPasswords false without an identity provider', () => {
    expect(problemsOf({ authentication: { localPasswords: false } })).toEqual([
      'authentication.localPasswords: false needs at least one of identityProviders (nobody could sign in)',
    ]);
  });

  it('refuses plain http away from this machine, and a logo that is no png, svg or jpg, or over 100 KB', () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-logo-'));
    writeFileSync(join(dir, 'logo.gif'), 'GIF89a');
    writeFileSync(join(dir, 'big.png'), Buffer.alloc(100 * 1024 + 1));
    expect(
      problemsOf({
        identityProviders: [
          { ...entry, issuer: 'http://idp.example.com' },
          { ...entry, id: 'gif', logoFile: join(dir, 'logo.gif') },
          { ...entry, id: 'big', logoFile: join(dir, 'big.png') },
          { ...entry, id: 'local', issuer: 'http://127.0.0.1:9999' },
        ],
      }),
    ).toEqual([
      'identityProviders.0.issuer: http is only for a provider on this machine (localhost, 127.0.0.1, [::1]); use https',
      'identityProviders.1.logoFile: must be a .png, .svg or .jpg file',
      'identityProviders.2.logoFile: 102401 bytes, more than 102400',
    ]);
  });
});
