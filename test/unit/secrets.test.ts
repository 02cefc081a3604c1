import { describe, it, expect } from 'vitest';
import { constantTimeEqual, generateClientId, generateSecret, sha256Hex, storedForm } from '../../src/oauth/secrets.js';

describe('generated secrets (SPEC 4, reference 17.3, RFC 6749 section 10.10)', () => {
  it('are 32 random bytes as base64url without padding: 43 characters', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
  });

  it('do not repeat', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => generateSecret()));
    expect(seen.size).toBe(1000);
  });
});

describe('generated client ids', () => {
  // A plain secret starts with '-' 1 time in 64: 5,000 draws without one cannot be luck.
  it('are generated secrets that never start with "-", so a command line never reads one as an option', () => {
    const ids = Array.from({ length: 5000 }, () => generateClientId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
    expect(new Set(ids).size).toBe(5000);
  });
});

describe('stored form of tokens and secrets (reference 17.4)', () => {
  it('sha256Hex is the lowercase hex SHA-256 digest', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('storedForm hashes only when hashing is on', () => {
    expect(storedForm('abc', true)).toBe(sha256Hex('abc'));
    expect(storedForm('abc', false)).toBe('abc');
  });
});

describe('constant-time comparison (RFC 9700, SPEC 4)', () => {
  it('is true only for identical strings', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('secret', 'Secret')).toBe(false);
    expect(constantTimeEqual('secret', 'secret ')).toBe(false);
  });

  it('compares strings of different lengths without throwing', () => {
    expect(constantTimeEqual('a', 'a'.repeat(1000))).toBe(false);
    expect(constantTimeEqual('', 'x')).toBe(false);
  });

  it('compares non-ASCII text by its UTF-8 bytes', () => {
    expect(constantTimeEqual('caf\u00e9', 'caf\u00e9')).toBe(true);
    expect(constantTimeEqual('caf\u00e9', 'cafe\u0301')).toBe(false);
  });
});
