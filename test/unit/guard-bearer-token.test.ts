import { describe, expect, it } from 'vitest';
import { extractBearerToken, MAX_TOKEN_LENGTH } from '../../packages/guard/src/bearer-token.js';

describe('guard: bearer token extraction (RFC 6750 section 2.1)', () => {
  it('reads the token after "Bearer " with a case-insensitive scheme', () => {
    expect(extractBearerToken('Bearer abc.DEF-123_~+/==')).toEqual({ kind: 'bearer', token: 'abc.DEF-123_~+/==' });
    expect(extractBearerToken('bearer abc')).toEqual({ kind: 'bearer', token: 'abc' });
    expect(extractBearerToken('BEARER   abc  ')).toEqual({ kind: 'bearer', token: 'abc' });
  });

  it('treats no header, an empty Bearer credential and other schemes as no token (reference P2)', () => {
    for (const header of [undefined, '', 'Bearer', 'Bearer   ', 'MAC abc', 'Basic YTpi', 'Bearerabc', 'Token abc']) {
      expect(extractBearerToken(header), String(header)).toEqual({ kind: 'none' });
    }
  });

  it('treats a Bearer credential that is not one b64token as an invalid token, without lookup', () => {
    for (const header of [
      'Bearer a b',
      'Bearer a"b',
      'Bearer =abc',
      'Bearer\tabc',
      'Bearer ab=c',
      `Bearer ${'a'.repeat(MAX_TOKEN_LENGTH + 1)}`,
    ]) {
      expect(extractBearerToken(header), header.slice(0, 20)).toEqual({ kind: 'malformed' });
    }
  });

  it('reads a long JWT access token (RFC 9396 authorization_details make them grow): an audit found 4,322 characters refused', () => {
    const jwt = `${'e'.repeat(40)}.${'p'.repeat(12_000)}.${'s'.repeat(86)}`;
    expect(extractBearerToken(`Bearer ${jwt}`)).toEqual({ kind: 'bearer', token: jwt });
  });
});
