import { describe, expect, it } from 'vitest';
import { openIdSettingsErrors, storedOpenIdSettings } from '../../src/oauth/clients/application-openid-settings.js';

// The OpenID Connect settings of an application (issue 16), as pure rules.

const uriErrors = (uri: string, forceSsl = true) =>
  openIdSettingsErrors({ postLogoutRedirectUri: uri }, { forceSsl }).map(([field, message]) => {
    expect(field).toBe('post_logout_redirect_uris');
    return message;
  });

describe('post-logout redirect URIs', () => {
  it('take what a redirect URI may be: https, loopback http, a reverse-domain private-use scheme', () => {
    for (const uri of ['https://rp.example/bye?x=1', 'http://127.0.0.1:8080/bye', 'http://[::1]/bye', 'com.example.app:/bye']) {
      expect(uriErrors(uri), uri).toEqual([]);
    }
  });

  it("report every redirect URI rule in the post-logout field's words", () => {
    const cases: Array<[string, string[]]> = [
      ['https://rp.example/bye#x', ['Post-logout redirect URI cannot contain a fragment.']],
      ['/bye', ['Post-logout redirect URI must be an absolute URI.']],
      ['//rp.example/bye', ['Post-logout redirect URI must specify a scheme.']],
      ['http://rp.example/bye', ['Post-logout redirect URI must be an HTTPS/SSL URI.']],
      ['ftp://rp.example/bye', ['Post-logout redirect URI is forbidden by the server.']],
      ['https://rp.example/<bye>', ['Post-logout redirect URI must be a valid URI.']],
      ['javascript:alert(1)', ['Post-logout redirect URI is forbidden by the server.']],
      ['urn:ietf:wg:oauth:2.0:oob', ['Post-logout redirect URI cannot be an out-of-band URI.']],
    ];
    for (const [uri, messages] of cases) expect(uriErrors(uri), uri).toEqual(messages);
  });

  it('follow forceSslInRedirectUri like redirect URIs', () => {
    expect(uriErrors('http://rp.example/bye', false)).toEqual([]);
  });
});

describe('signing algorithms', () => {
  it('take RS256, ES256, EdDSA, and blank for the default', () => {
    for (const alg of ['', 'RS256', 'ES256', 'EdDSA']) {
      expect(openIdSettingsErrors({ idTokenSignedResponseAlg: alg, userinfoSignedResponseAlg: alg }, { forceSsl: true })).toEqual([]);
    }
  });

  it('refuse anything else by name, none and another case included', () => {
    expect(openIdSettingsErrors({ idTokenSignedResponseAlg: 'none', userinfoSignedResponseAlg: 'es256' }, { forceSsl: true })).toEqual([
      ['id_token_signed_response_alg', 'ID token signing algorithm must be RS256, ES256 or EdDSA, not "none" (leave it blank for RS256).'],
      [
        'userinfo_signed_response_alg',
        'UserInfo signing algorithm must be RS256, ES256 or EdDSA, not "es256" (leave it blank for plain JSON).',
      ],
    ]);
  });
});

describe('storedOpenIdSettings', () => {
  it('writes only the settings given; blank is the default (null, no URIs)', () => {
    expect(storedOpenIdSettings({})).toEqual({});
    expect(
      storedOpenIdSettings({ postLogoutRedirectUri: 'https://a.example/x\r\nhttps://b.example/y', idTokenSignedResponseAlg: 'EdDSA' }),
    ).toEqual({
      postLogoutRedirectUris: ['https://a.example/x', 'https://b.example/y'],
      idTokenSignedResponseAlg: 'EdDSA',
    });
    expect(storedOpenIdSettings({ postLogoutRedirectUri: '', idTokenSignedResponseAlg: '', userinfoSignedResponseAlg: '' })).toEqual({
      postLogoutRedirectUris: [],
      idTokenSignedResponseAlg: null,
      userinfoSignedResponseAlg: null,
    });
  });
});
