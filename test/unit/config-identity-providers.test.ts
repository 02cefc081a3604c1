import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import { problemsOf } from '../helpers/config-problems.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

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
    const file = join(temporaryFolder('idp'), 'secret');
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
    const dir = temporaryFolder('idp-logo');
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

describe('config identityProviders: client authentication and endpoints checked at boot', () => {
  const dir = temporaryFolder('idp-key');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const pem = join(dir, 'key.pem');
  writeFileSync(pem, rsa.export({ type: 'pkcs8', format: 'pem' }));
  const jwk = join(dir, 'key.json');
  writeFileSync(jwk, JSON.stringify(rsa.export({ format: 'jwk' })));
  const pkcs1 = join(dir, 'pkcs1.pem');
  writeFileSync(pkcs1, rsa.export({ type: 'pkcs1', format: 'pem' }));
  const notAKey = join(dir, 'notes.txt');
  writeFileSync(notAKey, 'hello');
  const withKey = (id: string, keyFile: string, alg = 'RS256') => ({ ...entry, id, privateKeyJwt: { keyFile, alg } });

  it('privateKeyJwt.keyFile: missing, not a key, not PKCS#8, or of another algorithm fails the boot; a PEM or a JWK passes', () => {
    expect(
      problemsOf({
        identityProviders: [
          withKey('pem', pem),
          withKey('jwk', jwk),
          withKey('gone', join(dir, 'missing.pem')),
          withKey('text', notAKey),
          withKey('pkcs1', pkcs1),
          withKey('ec', pem, 'ES256'),
        ],
      }),
    ).toEqual([
      `identityProviders.2.privateKeyJwt.keyFile: cannot read ${join(dir, 'missing.pem')}: ENOENT`,
      `identityProviders.3.privateKeyJwt.keyFile: ${notAKey} holds no private key (a PKCS#8 PEM, "BEGIN PRIVATE KEY", or a private JWK)`,
      `identityProviders.4.privateKeyJwt.keyFile: ${pkcs1} holds no private key (a PKCS#8 PEM, "BEGIN PRIVATE KEY", or a private JWK)`,
      `identityProviders.5.privateKeyJwt.keyFile: ${pem} is a rsa key, not one of ES256`,
    ]);
  });

  it('type oauth2: a plain-http endpoint away from this machine fails the boot, naming the key', () => {
    const oauth2 = {
      ...entry,
      type: 'oauth2',
      authorizationEndpoint: 'http://github.example.com/login/oauth/authorize',
      tokenEndpoint: 'http://github.example.com/login/oauth/access_token',
      userinfoEndpoint: 'http://api.github.example.com/user',
    };
    const local = {
      ...oauth2,
      id: 'local',
      authorizationEndpoint: 'http://127.0.0.1:9999/auth',
      tokenEndpoint: 'http://localhost:9999/token',
    };
    expect(problemsOf({ identityProviders: [oauth2, { ...local, userinfoEndpoint: 'http://[::1]:9999/me' }] })).toEqual([
      'identityProviders.0.authorizationEndpoint: http is only for a provider on this machine (localhost, 127.0.0.1, [::1]); use https',
      'identityProviders.0.tokenEndpoint: http is only for a provider on this machine (localhost, 127.0.0.1, [::1]); use https',
      'identityProviders.0.userinfoEndpoint: http is only for a provider on this machine (localhost, 127.0.0.1, [::1]); use https',
    ]);
  });

  it('a public client (no secret, no privateKeyJwt) with usePkce false fails the boot; with PKCE, or with a secret, it passes', () => {
    expect(
      problemsOf(
        {
          identityProviders: [
            { ...entry, usePkce: false },
            { ...entry, id: 'pkce' },
            { ...entry, id: 'secret', usePkce: false },
          ],
        },
        { IDP_SECRET_CLIENT_SECRET: 's3cret' },
      ),
    ).toEqual([
      'identityProviders.0.usePkce: false needs client authentication: set IDP_CORP_IDP_CLIENT_SECRET, clientSecretFile or privateKeyJwt (a public client must use PKCE)',
    ]);
  });
});
