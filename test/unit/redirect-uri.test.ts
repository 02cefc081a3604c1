import { describe, it, expect } from 'vitest';
import {
  OOB_URI,
  buildRedirectUrl,
  isOutOfBand,
  matchesRegisteredUri,
  registrationErrors,
  splitRegisteredUris,
} from '../../src/oauth/authorization/redirect-uri.js';

// A public (native) client: RFC 8252's loopback port exception applies.
const NATIVE = { anyLoopbackPort: true };
const INVALID = 'Redirect URI must be a valid URI.';
const FRAGMENT = 'Redirect URI cannot contain a fragment.';
const NO_SCHEME = 'Redirect URI must specify a scheme.';
const RELATIVE = 'Redirect URI must be an absolute URI.';
const NOT_SSL = 'Redirect URI must be an HTTPS/SSL URI.';
const FORBIDDEN = 'Redirect URI is forbidden by the server.';

describe('out-of-band redirect URIs (reference 4.5)', () => {
  it('recognises both OOB URNs and nothing else', () => {
    expect(OOB_URI).toBe('urn:ietf:wg:oauth:2.0:oob');
    expect(isOutOfBand('urn:ietf:wg:oauth:2.0:oob')).toBe(true);
    expect(isOutOfBand('urn:ietf:wg:oauth:2.0:oob:auto')).toBe(true);
    expect(isOutOfBand('urn:ietf:wg:oauth:2.0:oob:other')).toBe(false);
    expect(isOutOfBand('URN:ietf:wg:oauth:2.0:oob')).toBe(false);
  });
});

describe('splitting the registered redirect_uri text (reference 7.1)', () => {
  it('splits on any whitespace and drops empties', () => {
    expect(splitRegisteredUris(' https://a.example/cb\r\nhttps://b.example/cb\t\n myapp://cb ')).toEqual([
      'https://a.example/cb',
      'https://b.example/cb',
      'myapp://cb',
    ]);
    expect(splitRegisteredUris('  \n ')).toEqual([]);
  });

  it('keeps a URI listed twice once, in the order first given', () => {
    expect(splitRegisteredUris('https://a.example/cb\nhttps://b.example/cb\nhttps://a.example/cb')).toEqual([
      'https://a.example/cb',
      'https://b.example/cb',
    ]);
  });
});

describe('registering a redirect URI (RFC 6749 section 3.1.2, reference 7.1, SPEC 3.5)', () => {
  const strict = { forceSsl: true };
  const lax = { forceSsl: false };

  it.each([
    'https://app.example.com/callback',
    'https://app.example.com/callback?tenant=1',
    'https://app.example.com:8443/cb',
    'com.example.app:/oauth2redirect',
    'http://127.0.0.1/cb',
    'http://127.0.0.1:8080/cb',
    'http://127.10.20.30:1/cb',
    'http://[::1]:4000/cb',
    'urn:ietf:wg:oauth:2.0:oob',
    'urn:ietf:wg:oauth:2.0:oob:auto',
  ])('accepts %s under forceSsl', (uri) => {
    expect(registrationErrors(uri, strict)).toEqual([]);
  });

  it('rejects http for non-loopback hosts, including the name localhost (RFC 8252 section 8.3)', () => {
    expect(registrationErrors('http://app.example.com/cb', strict)).toEqual([NOT_SSL]);
    expect(registrationErrors('http://localhost:3000/cb', strict)).toEqual([NOT_SSL]);
    expect(registrationErrors('HTTP://app.example.com/cb', strict)).toEqual([NOT_SSL]);
    expect(registrationErrors('http://128.0.0.1/cb', strict)).toEqual([NOT_SSL]);
    expect(registrationErrors('http://127.0.0.1.nip.io/cb', strict)).toEqual([NOT_SSL]);
    expect(registrationErrors('http://[::2]/cb', strict)).toEqual([NOT_SSL]);
  });

  it('accepts http anywhere when forceSsl is off', () => {
    expect(registrationErrors('http://localhost:3000/cb', lax)).toEqual([]);
    expect(registrationErrors('http://app.example.com/cb', lax)).toEqual([]);
  });

  it('rejects a fragment (RFC 6749 section 3.1.2), alone or with other errors', () => {
    expect(registrationErrors('https://app.example.com/cb#x', strict)).toEqual([FRAGMENT]);
    expect(registrationErrors('https://app.example.com/cb#', strict)).toEqual([FRAGMENT]);
    expect(registrationErrors('http://x.com/cb#f', strict)).toEqual([FRAGMENT, NOT_SSL]);
  });

  it('rejects relative URIs (RFC 6749 section 3.1.2: absolute URI)', () => {
    expect(registrationErrors('/callback', strict)).toEqual([RELATIVE]);
    expect(registrationErrors('callback', strict)).toEqual([RELATIVE]);
    expect(registrationErrors('', strict)).toEqual([RELATIVE]);
  });

  it('rejects URIs without a real scheme: opaque, "localhost:", scheme-relative', () => {
    expect(registrationErrors('localhost:3000', strict)).toEqual([NO_SCHEME]);
    expect(registrationErrors('myapp:callback', strict)).toEqual([NO_SCHEME]);
    expect(registrationErrors('localhost://cb', strict)).toEqual([NO_SCHEME]);
    expect(registrationErrors('//app.example.com/cb', strict)).toEqual([NO_SCHEME]);
  });

  it('rejects what RFC 3986 cannot parse', () => {
    for (const uri of [
      'https://app.example.com/c b',
      'https://app.example.com/caf\u00e9',
      'https://app.example.com/%zz',
      'https://exa mple.com/',
      'https://a@b@c.example/',
      'https://app.example.com:80a/',
      'https://[::1/cb',
      'https://[not-ip]/cb',
      '1https://app.example.com/',
      'https://app.example.com/cb#a#b',
      'https://app.example.com/\\evil',
    ]) {
      expect(registrationErrors(uri, strict), uri).toEqual([INVALID]);
    }
  });

  it('rejects http(s) without a host', () => {
    expect(registrationErrors('https:///cb', strict)).toEqual([INVALID]);
    expect(registrationErrors('https:/cb', strict)).toEqual([INVALID]);
  });

  it('forbids schemes that run script', () => {
    expect(registrationErrors('javascript://%0aalert(1)', lax)).toEqual([FORBIDDEN]);
    expect(registrationErrors('JavaScript:alert(1)', lax)).toEqual([FORBIDDEN]);
    expect(registrationErrors('data:text/html,x', lax)).toEqual([FORBIDDEN]);
  });

  it('refuses what a browser would not open as written: a port outside 1-65535, dot segments (a self-registration audit)', () => {
    const port = 'Redirect URI port must be a number from 1 to 65535.';
    const dots = 'Redirect URI path must not hold . or .. segments: browsers resolve them, so the URI would not go where it reads.';
    expect(registrationErrors('http://localhost:0/cb', lax)).toEqual([port]);
    // The port alone is at fault: the host is one a browser opens.
    expect(registrationErrors('http://127.0.0.1:65536/cb', strict)).toEqual([port]);
    expect(registrationErrors('https://a.example.com:99999/cb', strict)).toEqual([port]);
    expect(registrationErrors('https://rp.example/cb/../x', strict)).toEqual([dots]);
    expect(registrationErrors('https://rp.example/cb/%2E%2e/x', strict)).toEqual([dots]);
    expect(registrationErrors('com.example.app:/./cb', strict)).toEqual([dots]);
    expect(registrationErrors('http://127.0.0.1:65535/cb..x/.well-known', strict)).toEqual([]);
    // A URI the application already has stays valid.
    expect(registrationErrors('https://rp.example/cb/../x', { ...strict, stored: true })).toEqual([]);
  });
});

describe('matching a requested redirect URI: exact string match (RFC 9700 section 4.1.3, SPEC 3.5 and 8)', () => {
  const registered = ['https://app.example.com/callback', 'https://app.example.com/other?tenant=1', 'https://app.example.com/two?a=1&b=2'];

  it('accepts a string-identical URI', () => {
    expect(matchesRegisteredUri('https://app.example.com/callback', registered, NATIVE)).toBe(true);
    expect(matchesRegisteredUri('https://app.example.com/other?tenant=1', registered, NATIVE)).toBe(true);
  });

  it.each([
    ['a trailing slash', 'https://app.example.com/callback/'],
    ['a missing path segment', 'https://app.example.com/'],
    ['a different path case', 'https://app.example.com/Callback'],
    ['a different host case', 'https://APP.example.com/callback'],
    ['a different scheme case', 'HTTPS://app.example.com/callback'],
    ['http instead of https', 'http://app.example.com/callback'],
    ['an extra query', 'https://app.example.com/callback?foo=bar'],
    ['an empty query', 'https://app.example.com/callback?'],
    ['a missing registered query', 'https://app.example.com/other'],
    ['an extended registered query', 'https://app.example.com/other?tenant=1&x=2'],
    ['a registered query reordered', 'https://app.example.com/two?b=2&a=1'],
    ['userinfo', 'https://user@app.example.com/callback'],
    ['userinfo hiding another host', 'https://app.example.com@evil.example/callback'],
    ['percent-encoded characters', 'https://app.example.com/%63allback'],
    ['an encoded slash', 'https://app.example.com/callback%2F'],
    ['path traversal with ..;/', 'https://app.example.com/callback/..;/evil'],
    ['dot segments', 'https://app.example.com/x/../callback'],
    ['a fragment', 'https://app.example.com/callback#x'],
    ['the default port spelled out', 'https://app.example.com:443/callback'],
    ['another port', 'https://app.example.com:8443/callback'],
    ['a subdomain', 'https://evil.app.example.com/callback'],
    ['a suffix host', 'https://app.example.com.evil.example/callback'],
    ['surrounding whitespace', ' https://app.example.com/callback'],
    ['an empty string', ''],
  ])('rejects %s', (_label, requested) => {
    expect(matchesRegisteredUri(requested, registered, NATIVE)).toBe(false);
  });

  it('rejects a registered URI that is itself invalid as a redirect target, even when identical', () => {
    expect(matchesRegisteredUri('https://app.example.com/cb#frag', ['https://app.example.com/cb#frag'], NATIVE)).toBe(false);
    expect(matchesRegisteredUri('/cb', ['/cb'], NATIVE)).toBe(false);
    expect(matchesRegisteredUri('localhost:3000', ['localhost:3000'], NATIVE)).toBe(false);
  });

  it('matches custom schemes exactly', () => {
    expect(matchesRegisteredUri('com.example.app:/oauth2redirect', ['com.example.app:/oauth2redirect'], NATIVE)).toBe(true);
    expect(matchesRegisteredUri('com.example.app:/oauth2redirect/', ['com.example.app:/oauth2redirect'], NATIVE)).toBe(false);
  });

  it('matches OOB only against the identical registered URN', () => {
    expect(matchesRegisteredUri(OOB_URI, [OOB_URI], NATIVE)).toBe(true);
    expect(matchesRegisteredUri('urn:ietf:wg:oauth:2.0:oob:auto', [OOB_URI], NATIVE)).toBe(false);
    expect(matchesRegisteredUri(OOB_URI, ['https://app.example.com/callback'], NATIVE)).toBe(false);
  });

  it('rejects everything when nothing is registered', () => {
    expect(matchesRegisteredUri('https://app.example.com/callback', [], NATIVE)).toBe(false);
  });
});

describe('loopback redirect URIs: any port (RFC 8252 section 7.3)', () => {
  it('127.0.0.1: the port may differ or be added', () => {
    expect(matchesRegisteredUri('http://127.0.0.1:51004/cb', ['http://127.0.0.1/cb'], NATIVE)).toBe(true);
    expect(matchesRegisteredUri('http://127.0.0.1:51004/cb', ['http://127.0.0.1:8080/cb'], NATIVE)).toBe(true);
    expect(matchesRegisteredUri('http://127.0.0.1/cb', ['http://127.0.0.1:8080/cb'], NATIVE)).toBe(true);
  });

  it('[::1]: the port may differ', () => {
    expect(matchesRegisteredUri('http://[::1]:61234/cb', ['http://[::1]/cb'], NATIVE)).toBe(true);
    expect(matchesRegisteredUri('http://[::1]:61234/cb?x=1', ['http://[::1]:3000/cb?x=1'], NATIVE)).toBe(true);
  });

  it('only for public clients: a confidential client must name the registered port', () => {
    const confidential = { anyLoopbackPort: false };
    expect(matchesRegisteredUri('http://127.0.0.1:5555/cb', ['http://127.0.0.1/cb'], confidential)).toBe(false);
    expect(matchesRegisteredUri('http://[::1]:5555/cb', ['http://[::1]:3000/cb'], confidential)).toBe(false);
    expect(matchesRegisteredUri('http://127.0.0.1/cb', ['http://127.0.0.1/cb'], confidential)).toBe(true);
  });

  it('localhost is a name, not a loopback IP: its port must match', () => {
    expect(matchesRegisteredUri('http://localhost:3000/cb', ['http://localhost:3000/cb'], NATIVE)).toBe(true);
    expect(matchesRegisteredUri('http://localhost:4000/cb', ['http://localhost:3000/cb'], NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://localhost:4000/cb', ['http://localhost/cb'], NATIVE)).toBe(false);
  });

  it('everything but the port must still be identical', () => {
    const registered = ['http://127.0.0.1/cb'];
    expect(matchesRegisteredUri('http://127.0.0.2:5000/cb', registered, NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://[::1]:5000/cb', registered, NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://127.0.0.1:5000/cb/', registered, NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://127.0.0.1:5000/cb?x=1', registered, NATIVE)).toBe(false);
    expect(matchesRegisteredUri('https://127.0.0.1:5000/cb', registered, NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://u@127.0.0.1:5000/cb', registered, NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://127.0.0.1:5000/cb#x', registered, NATIVE)).toBe(false);
  });

  it('does not treat look-alike hosts as loopback', () => {
    expect(matchesRegisteredUri('http://127.0.0.1.evil.example:5000/cb', ['http://127.0.0.1.evil.example/cb'], NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://0x7f000001:5000/cb', ['http://0x7f000001/cb'], NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://127.1:5000/cb', ['http://127.1/cb'], NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://[::ffff:127.0.0.1]:5000/cb', ['http://[::ffff:127.0.0.1]/cb'], NATIVE)).toBe(false);
  });

  it('only to a port a native app can listen on', () => {
    expect(matchesRegisteredUri('http://127.0.0.1:65535/cb', ['http://127.0.0.1/cb'], NATIVE)).toBe(true);
    expect(matchesRegisteredUri('http://127.0.0.1:65536/cb', ['http://127.0.0.1/cb'], NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://127.0.0.1:0/cb', ['http://127.0.0.1/cb'], NATIVE)).toBe(false);
    expect(matchesRegisteredUri('http://[::1]:99999/cb', ['http://[::1]/cb'], NATIVE)).toBe(false);
  });

  it('does not relax ports for custom schemes', () => {
    expect(matchesRegisteredUri('myapp://127.0.0.1:5000/cb', ['myapp://127.0.0.1/cb'], NATIVE)).toBe(false);
  });
});

describe('building the authorization response redirect (RFC 6749 sections 4.1.2 and 4.2.2, reference 4.5)', () => {
  it('query mode appends form-encoded parameters', () => {
    expect(buildRedirectUrl('https://app.example.com/cb', { code: 'abc', state: 'a b&c=d' }, 'query')).toBe(
      'https://app.example.com/cb?code=abc&state=a+b%26c%3Dd',
    );
  });

  it('query mode keeps the registered query byte for byte (RFC 6749 section 3.1.2: MUST retain the query)', () => {
    expect(buildRedirectUrl('https://app.example.com/cb?x=1&y=%2F', { code: 'abc' }, 'query')).toBe(
      'https://app.example.com/cb?x=1&y=%2F&code=abc',
    );
  });

  it('response parameters replace same-named registered ones: no duplicate state (Doorkeeper 6)', () => {
    expect(buildRedirectUrl('https://app.example.com/cb?state=fixed&x=1', { code: 'c', state: 'abc' }, 'query')).toBe(
      'https://app.example.com/cb?x=1&code=c&state=abc',
    );
    expect(buildRedirectUrl('https://app.example.com/cb?st%61te=fixed', { state: 'abc' }, 'query')).toBe(
      'https://app.example.com/cb?state=abc',
    );
  });

  it('drops undefined and empty values, leaving a registered parameter of that name alone', () => {
    expect(buildRedirectUrl('https://app.example.com/cb?state=fixed', { code: 'c', state: '', iss: undefined }, 'query')).toBe(
      'https://app.example.com/cb?state=fixed&code=c',
    );
    expect(buildRedirectUrl('https://app.example.com/cb', { state: undefined }, 'query')).toBe('https://app.example.com/cb');
  });

  it('fragment mode replaces the fragment and keeps the query', () => {
    expect(buildRedirectUrl('https://app.example.com/cb?x=1', { access_token: 't', token_type: 'Bearer', state: 's' }, 'fragment')).toBe(
      'https://app.example.com/cb?x=1#access_token=t&token_type=Bearer&state=s',
    );
    expect(buildRedirectUrl('https://app.example.com/cb#old', { error: 'access_denied' }, 'fragment')).toBe(
      'https://app.example.com/cb#error=access_denied',
    );
  });

  it('errors carry error, error_description and state (RFC 6749 section 4.1.2.1)', () => {
    const url = new URL(
      buildRedirectUrl(
        'https://app.example.com/cb',
        { error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.', state: 'xyz' },
        'query',
      ),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      error: 'invalid_scope',
      error_description: 'The requested scope is invalid, unknown, or malformed.',
      state: 'xyz',
    });
  });

  it('works for custom schemes and loopback URIs', () => {
    expect(buildRedirectUrl('com.example.app:/cb', { code: 'c' }, 'query')).toBe('com.example.app:/cb?code=c');
    expect(buildRedirectUrl('http://127.0.0.1:5000/cb', { code: 'c' }, 'query')).toBe('http://127.0.0.1:5000/cb?code=c');
  });
});
