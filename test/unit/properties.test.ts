import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { extractClientCredentials } from '../../src/oauth/clients/client-credentials.js';
import { OAuthError } from '../../src/oauth/errors.js';
import { verifyCodeVerifier } from '../../src/oauth/authorization/pkce.js';
import { buildRedirectUrl, matchesRegisteredUri } from '../../src/oauth/authorization/redirect-uri.js';
import { narrowScopes, parseScopes } from '../../src/oauth/scopes.js';

// Hostile input must never escape as an exception (SPEC 3: no input makes any endpoint answer 500).
const anyText = fc.string({ unit: 'binary', maxLength: 200 });
const uriPieces = fc.constantFrom(
  'http',
  'https',
  'HTTP',
  'myapp',
  ':',
  '//',
  '/',
  '?',
  '#',
  '@',
  '[',
  ']',
  '::1',
  '127.0.0.1',
  '127.0.0.2',
  'localhost',
  'app.example.com',
  ':8080',
  ':',
  '%',
  '%2F',
  '%zz',
  '..;/',
  '..',
  '.',
  ' ',
  '\n',
  '&',
  '=',
  'é',
  'cb',
);
const uriLike = fc.array(uriPieces, { maxLength: 12 }).map((parts) => parts.join(''));
const uriInput = fc.oneof(anyText, uriLike, fc.webUrl({ withQueryParameters: true, withFragments: true }));
const loopbackUri = fc
  .record({
    scheme: fc.constantFrom('http', 'https'),
    host: fc.constantFrom('127.0.0.1', '[::1]'),
    port: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }),
    path: fc.constantFrom('/', '/cb', '/cb/', ''),
  })
  .map(({ scheme, host, port, path }) => `${scheme}://${host}${port === undefined ? '' : `:${port}`}${path}`);

function stripLoopbackPort(uri: string): string {
  return uri.replace(/^(https?:\/\/(?:127(?:\.\d{1,3}){3}|\[::1\])):\d*/, '$1');
}

describe('properties of the OAuth building blocks', () => {
  it('matchesRegisteredUri never throws', () => {
    fc.assert(
      fc.property(uriInput, fc.array(uriInput, { maxLength: 4 }), (requested, registered) => {
        expect(typeof matchesRegisteredUri(requested, registered, { anyLoopbackPort: true })).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('matchesRegisteredUri(x, [r]) implies x === r or the loopback port exception (RFC 8252 section 7.3)', () => {
    fc.assert(
      fc.property(fc.oneof(uriInput, loopbackUri), fc.oneof(uriInput, loopbackUri), (requested, registered) => {
        if (!matchesRegisteredUri(requested, [registered], { anyLoopbackPort: true })) return;
        if (requested === registered) return;
        expect(stripLoopbackPort(requested)).toBe(stripLoopbackPort(registered));
        expect(requested).toMatch(/^https?:\/\/(?:127(?:\.\d{1,3}){3}|\[::1\])(?:[:/?]|$)/);
      }),
      { numRuns: 3000 },
    );
  });

  it('any two loopback URIs differing only by port match (RFC 8252 section 7.3)', () => {
    fc.assert(
      fc.property(loopbackUri, fc.integer({ min: 1, max: 65535 }), (registered, port) => {
        const requested = stripLoopbackPort(registered).replace(/^(https?:\/\/[^/]+)/, `$1:${port}`);
        expect(matchesRegisteredUri(requested, [registered], { anyLoopbackPort: true })).toBe(true);
      }),
    );
  });

  it('extractClientCredentials throws nothing but OAuthError', () => {
    const header = fc.oneof(
      anyText,
      anyText.map((text) => `Basic ${text}`),
      anyText.map((text) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`),
      fc.uint8Array({ maxLength: 40 }).map((bytes) => `basic ${Buffer.from(bytes).toString('base64')}`),
    );
    const value = fc.oneof(anyText, fc.anything());
    const body = fc.dictionary(fc.constantFrom('client_id', 'client_secret', 'grant_type', '__proto__'), value);
    fc.assert(
      fc.property(fc.option(header, { nil: undefined }), body, (authorization, fields) => {
        try {
          const result = extractClientCredentials({ authorization, body: fields, address: '127.0.0.1' });
          if (result !== null) expect(result.clientId).not.toBe('');
        } catch (error) {
          expect(error).toBeInstanceOf(OAuthError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('parseScopes never throws and yields distinct, non-empty, whitespace-free scopes', () => {
    fc.assert(
      fc.property(fc.option(anyText, { nil: undefined }), (value) => {
        const scopes = parseScopes(value);
        expect(new Set(scopes).size).toBe(scopes.length);
        for (const scope of scopes) expect(scope).toMatch(/^[^\t\n\v\f\r ]+$/);
      }),
    );
  });

  it('verifyCodeVerifier never throws', () => {
    fc.assert(
      fc.property(anyText, anyText, fc.oneof(fc.constantFrom('S256', 'plain'), anyText), (verifier, challenge, method) => {
        expect(typeof verifyCodeVerifier(verifier, challenge, method)).toBe('boolean');
      }),
    );
  });

  it('buildRedirectUrl never throws, and its parameters read back intact', () => {
    const params = fc.dictionary(
      fc.constantFrom('code', 'state', 'error', 'error_description', 'iss'),
      fc.option(anyText, { nil: undefined }),
    );
    fc.assert(
      fc.property(uriInput, params, fc.constantFrom('query' as const, 'fragment' as const), (uri, values, mode) => {
        const url = buildRedirectUrl(uri, values, mode);
        expect(typeof url).toBe('string');
        if (mode !== 'fragment') return;
        const fragment = url.includes('#') ? url.slice(url.indexOf('#') + 1) : '';
        const sent = Object.entries(values).filter(([, v]) => v !== undefined && v !== '');
        expect([...new URLSearchParams(fragment)]).toEqual(sent.map(([k, v]) => [k, new URLSearchParams([[k, v as string]]).get(k)]));
      }),
      { numRuns: 2000 },
    );
  });

  it('narrowScopes never returns a scope outside the original (RFC 6749 section 6)', () => {
    const scope = fc.constantFrom('read', 'write', 'admin', 'profile', 'email', 'a:b');
    fc.assert(
      fc.property(fc.array(scope), fc.array(scope), (requested, original) => {
        const narrowed = narrowScopes(requested, original);
        if (narrowed === null) {
          expect(requested.some((s) => !original.includes(s))).toBe(true);
          return;
        }
        for (const s of narrowed) expect(original).toContain(s);
      }),
    );
  });
});
