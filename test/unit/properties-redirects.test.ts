import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSafeReturnPath } from '../../src/http/hooks/authenticate-resource-owner.js';
import { buildRedirectUrl, matchesRegisteredUri } from '../../src/oauth/authorization/redirect-uri.js';

// Properties of everything that decides where a browser is sent (RFC 9700 sections 4.1 and 4.11). The basic
// matching properties (never throws, exact or loopback-port match only) are in test/unit/properties.test.ts.

const RESPONSE_NAMES = ['code', 'state', 'error', 'error_description', 'iss'] as const;
// Plain DNS labels: no leading/trailing hyphen and no "xn--" prefix, which WHATWG URL (used to read the result
// back) rejects as invalid punycode.
const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,9}[a-z0-9])?$/).filter((l) => !l.startsWith('xn--') && l.slice(2, 4) !== '--');
const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,10}$/);
const queryPair = fc.tuple(
  fc.stringMatching(/^[a-z]{1,8}$/).filter((n) => !(RESPONSE_NAMES as readonly string[]).includes(n)),
  segment,
);
/** A registrable https redirect URI (reference 7.1), with an optional query of its own. */
const registeredUri = fc
  .record({
    host: fc.array(label, { minLength: 1, maxLength: 3 }),
    path: fc.array(segment, { maxLength: 3 }),
    query: fc.uniqueArray(queryPair, { maxLength: 3, selector: ([n]) => n }),
  })
  .map(
    ({ host, path, query }) =>
      `https://${host.join('.')}.example/${path.join('/')}${query.length ? `?${query.map(([n, v]) => `${n}=${v}`).join('&')}` : ''}`,
  );
const responseValue = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 });
const responseParams = fc.dictionary(fc.constantFrom(...RESPONSE_NAMES), responseValue, { minKeys: 1 });

describe('buildRedirectUrl round-trips (reference 4.5, RFC 6749 section 4.1.2)', () => {
  it('query mode: the registered URI is kept byte for byte and every response parameter reads back exactly, once', () => {
    fc.assert(
      fc.property(registeredUri, responseParams, (uri, params) => {
        const built = buildRedirectUrl(uri, params, 'query');
        expect(built.startsWith(uri)).toBe(true);
        const url = new URL(built);
        const registered = [...new URL(uri).searchParams];
        expect([...url.searchParams]).toEqual([...registered, ...Object.entries(params)]);
        expect(url.hash).toBe('');
      }),
      { numRuns: 2000 },
    );
  });

  it('fragment mode: the query is untouched and the fragment holds exactly the response parameters', () => {
    fc.assert(
      fc.property(registeredUri, responseParams, (uri, params) => {
        const built = buildRedirectUrl(uri, params, 'fragment');
        expect(built.startsWith(`${uri}#`)).toBe(true);
        const url = new URL(built);
        expect(url.search).toBe(new URL(uri).search);
        expect([...new URLSearchParams(url.hash.slice(1))]).toEqual(Object.entries(params));
      }),
      { numRuns: 1000 },
    );
  });

  it('a registered parameter named like a response parameter is replaced, never duplicated (Doorkeeper 6)', () => {
    fc.assert(
      fc.property(registeredUri, fc.constantFrom(...RESPONSE_NAMES), segment, responseValue, (uri, collide, registeredValue, value) => {
        const withCollision = `${uri}${uri.includes('?') ? '&' : '?'}${collide}=${registeredValue}`;
        const url = new URL(buildRedirectUrl(withCollision, { [collide]: value }, 'query'));
        expect(url.searchParams.getAll(collide)).toEqual([value]);
      }),
    );
  });
});

describe('redirect URI matching under mutation (RFC 9700 section 4.1.3: exact string matching)', () => {
  const mutation = fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      char: fc.constantFrom('/', '.', '@', '%2F', '..;/', ':443', '?', '#', 'a', 'A', ' ', '\\'),
    }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('case' as const), at: fc.nat() }),
  );
  const apply = (uri: string, m: { kind: 'insert' | 'delete' | 'case'; at: number; char?: string }) => {
    const at = m.at % (uri.length + 1);
    if (m.kind === 'insert') return uri.slice(0, at) + m.char! + uri.slice(at);
    if (m.kind === 'delete') return uri.slice(0, at) + uri.slice(at + 1);
    const c = uri[at] ?? '';
    return uri.slice(0, at) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + uri.slice(at + 1);
  };

  it('any changed character of a registered https URI never matches it', () => {
    fc.assert(
      fc.property(registeredUri, mutation, (uri, m) => {
        const requested = apply(uri, m);
        expect(matchesRegisteredUri(requested, [uri], { anyLoopbackPort: true })).toBe(requested === uri);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the login return path (no open redirect, RFC 9700 section 4.11)', () => {
  const pieces = fc.constantFrom(
    '/',
    '//',
    '\\',
    '/\\',
    'evil.example',
    'http:',
    'https://',
    ':',
    '@',
    '%2F',
    '%5C',
    '.',
    '..',
    '\t',
    '\n',
    ' ',
    '?',
    '#',
    'a',
    'javascript:',
    '\u3002',
    '\uff0f',
  );
  const joined = fc.array(pieces, { maxLength: 8 }).map((p) => p.join(''));
  const pathLike = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    joined,
    joined.map((p) => `/${p}`),
    fc.string({ maxLength: 30 }).map((p) => `/${p}`),
  );

  it('every path accepted as a return target stays on this origin when a browser resolves it', () => {
    fc.assert(
      fc.property(pathLike, (path) => {
        if (!isSafeReturnPath(path)) return;
        expect(new URL(path, 'https://service.example/login').origin).toBe('https://service.example');
      }),
      { numRuns: 5000 },
    );
  });
});
