import { describe, expect, it } from 'vitest';
import { isAllowedRedirectScheme, registrationErrors } from '../../src/oauth/authorization/redirect-uri.js';

// The one rule for the schemes of registered redirect URIs, whoever registers them (admin form, admin JSON API,
// CLI): https (http on loopback, or anywhere with forceSslInRedirectUri off), a native app's private-use scheme
// (RFC 8252 section 7.1: a reverse domain name), the out-of-band URN; every other scheme is forbidden.
const FORBIDDEN = 'Redirect URI is forbidden by the server.';
const NO_SCHEME = 'Redirect URI must specify a scheme.';
const FRAGMENT = 'Redirect URI cannot contain a fragment.';
const strict = { forceSsl: true };
const lax = { forceSsl: false };

describe('registering a redirect URI: its scheme (RFC 8252 section 7.1)', () => {
  it.each([
    'com.example.app:/oauth2redirect',
    'com.example.app:/cb',
    'com.example.app://cb',
    'io.github.some-user.app:/callback',
    'COM.Example.App:/cb',
    'https://app.example.com/cb',
    'http://127.0.0.1:8080/cb',
    'urn:ietf:wg:oauth:2.0:oob',
  ])('accepts %s', (uri) => {
    expect(registrationErrors(uri, strict)).toEqual([]);
  });

  it.each([
    'file:///etc/passwd',
    'file://host/share/cb',
    'ftp://files.example.com/cb',
    'ws://app.example.com/cb',
    'wss://app.example.com/cb',
    'chrome-extension://abcdef/cb',
    'intent://cb',
    'myapp://callback',
    'x-my-app:/cb',
    'javascript://%0aalert(1)',
    'JavaScript://x/%0aalert(1)',
  ])('forbids %s, under forceSsl and without it', (uri) => {
    expect(registrationErrors(uri, strict)).toEqual([FORBIDDEN]);
    expect(registrationErrors(uri, lax)).toEqual([FORBIDDEN]);
  });

  it('forbids script schemes as schemes (not also "must specify a scheme"), and calls other opaque URIs scheme-less only', () => {
    expect(registrationErrors('javascript:alert(1)', lax)).toEqual([FORBIDDEN]);
    expect(registrationErrors('data:text/html,<x>'.replace('<x>', 'x'), lax)).toEqual([FORBIDDEN]);
    expect(registrationErrors('vbscript:msgbox', lax)).toEqual([FORBIDDEN]);
    expect(registrationErrors('javascript:x#f', lax)).toEqual([FORBIDDEN, FRAGMENT]);
    expect(registrationErrors('mailto:a@example.com', lax)).toEqual([NO_SCHEME]);
    expect(registrationErrors('localhost:3000', lax)).toEqual([NO_SCHEME]);
    expect(registrationErrors('com.example.app:cb', lax)).toEqual([NO_SCHEME]);
  });

  it('isAllowedRedirectScheme: http, https and reverse domain names, in any case', () => {
    expect(['http', 'HTTPS', 'com.example.app', 'org.example-corp.mobile'].map(isAllowedRedirectScheme)).toEqual([true, true, true, true]);
    expect(
      ['file', 'data', 'javascript', 'ftp', 'myapp', 'com.', '.com', 'com..app', 'com.example+app', '1com.example'].map(
        isAllowedRedirectScheme,
      ),
    ).toEqual(Array(10).fill(false));
  });
});
