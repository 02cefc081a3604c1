import { describe, expect, it } from 'vitest';
import { algorithmsFor, fapi2ProfileProblems, signingAlgorithmFor } from '../../src/oauth/clients/fapi2-profile.js';

// FAPI 2.0 Security Profile section 5.4 as fapi2-profile.ts applies it to a client of profile fapi2; through HTTP in
// test/integration/fapi2-algorithms.test.ts.

const fapi2 = { profile: 'fapi2' as const };
const none = { profile: 'none' as const };

describe('signingAlgorithmFor: what this server signs a client’s JWTs with', () => {
  it('an ordinary client: what it registered, else RS256, whatever keys.algorithms holds', () => {
    expect(signingAlgorithmFor(none, null, { algorithms: ['ES256'] })).toBe('RS256');
    expect(signingAlgorithmFor(none, 'EdDSA', { algorithms: ['RS256'] })).toBe('EdDSA');
  });

  it('a fapi2 client without one: the first FAPI 2.0 algorithm of keys.algorithms, in its order', () => {
    expect(signingAlgorithmFor(fapi2, null, { algorithms: ['RS256', 'EdDSA', 'ES256'] })).toBe('EdDSA');
    expect(signingAlgorithmFor(fapi2, null, { algorithms: ['ES256', 'EdDSA'] })).toBe('ES256');
  });

  it('a fapi2 client when keys.algorithms names none FAPI 2.0 allows: ES256 (its key made on first use)', () => {
    expect(signingAlgorithmFor(fapi2, null, { algorithms: ['RS256'] })).toBe('ES256');
  });

  it('a fapi2 client keeps a FAPI algorithm it registered; a stored RS256 is replaced by the default', () => {
    expect(signingAlgorithmFor(fapi2, 'ES256', { algorithms: ['RS256', 'EdDSA'] })).toBe('ES256');
    expect(signingAlgorithmFor(fapi2, 'RS256', { algorithms: ['RS256', 'EdDSA'] })).toBe('EdDSA');
  });
});

describe('algorithmsFor: what a client’s own JWTs may be signed with', () => {
  it('a fapi2 client: only PS256, ES256 and EdDSA of those verified; an ordinary client: all of them', () => {
    const verified = ['RS256', 'PS256', 'ES256', 'EdDSA'];
    expect(algorithmsFor(fapi2, verified)).toEqual(['PS256', 'ES256', 'EdDSA']);
    expect(algorithmsFor(none, verified)).toEqual(verified);
    expect(algorithmsFor(fapi2, ['HS256'])).toEqual([]);
  });
});

describe('fapi2ProfileProblems: the signing algorithms a fapi2 client may register', () => {
  const client = { profile: 'fapi2', confidential: true, tokenEndpointAuthMethod: 'private_key_jwt', grantTypes: null };

  it('RS256 in any of the three fields is refused, naming the field; blank, ES256 and EdDSA pass', () => {
    expect(
      fapi2ProfileProblems({
        ...client,
        signedResponseAlgs: {
          id_token_signed_response_alg: 'RS256',
          userinfo_signed_response_alg: 'ES256',
          authorization_signed_response_alg: 'RS256',
        },
      }),
    ).toEqual([
      'profile fapi2 does not allow id_token_signed_response_alg RS256 (FAPI 2.0 allows only ES256 or EdDSA for what this server signs).',
      'profile fapi2 does not allow authorization_signed_response_alg RS256 (FAPI 2.0 allows only ES256 or EdDSA for what this server signs).',
    ]);
    const allowed = { id_token_signed_response_alg: '', userinfo_signed_response_alg: null, authorization_signed_response_alg: 'EdDSA' };
    expect(fapi2ProfileProblems({ ...client, signedResponseAlgs: allowed })).toEqual([]);
  });

  it('an algorithm this server does not sign with is its field’s error, not the profile’s; an ordinary client is not judged', () => {
    expect(fapi2ProfileProblems({ ...client, signedResponseAlgs: { id_token_signed_response_alg: 'HS256' } })).toEqual([]);
    expect(fapi2ProfileProblems({ ...client, profile: 'none', signedResponseAlgs: { id_token_signed_response_alg: 'RS256' } })).toEqual([]);
  });
});

describe('fapi2ProfileProblems: the redirect URIs of a fapi2 client (FAPI 2.0 section 5.3.2.2)', () => {
  const client = { profile: 'fapi2', confidential: true, tokenEndpointAuthMethod: 'private_key_jwt', grantTypes: null };

  it('http elsewhere than a loopback address is refused, whatever forceSslInRedirectUri lets other clients have', () => {
    expect(fapi2ProfileProblems({ ...client, redirectUris: ['https://rp.example/cb', 'http://rp.example/cb'] })).toEqual([
      'profile fapi2 does not allow the redirect URI http://rp.example/cb (FAPI 2.0: https, or http on a loopback address only).',
    ]);
    const allowed = ['https://rp.example/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb', 'com.example.app:/cb', 'not a uri'];
    expect(fapi2ProfileProblems({ ...client, redirectUris: allowed })).toEqual([]);
    expect(fapi2ProfileProblems({ ...client, profile: 'none', redirectUris: ['http://rp.example/cb'] })).toEqual([]);
  });
});
