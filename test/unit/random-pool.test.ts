import { describe, expect, it } from 'vitest';
import { randomBase64url } from '../../src/oauth/random-pool.js';

// src/oauth/random-pool.ts hands out the CSPRNG's bytes from a block, each byte once (RFC 6749 section 10.10).
describe('random bytes from the block (generated secrets, SPEC 4)', () => {
  it('gives each byte once, across refills and a block end that a value does not fit', () => {
    // 24 does not divide the 4096-byte block, so each refill leaves a tail unused; 1,000 values span 6 blocks.
    const values = Array.from({ length: 1000 }, () => Buffer.from(randomBase64url(24), 'base64url'));
    for (const value of values) expect(value).toHaveLength(24);
    // Overlapping or repeated hand-outs would repeat an 8-byte window; 3,000 random windows never do.
    const windows = values.flatMap((value) => [0, 8, 16].map((at) => value.subarray(at, at + 8).toString('hex')));
    expect(new Set(windows).size).toBe(3000);
  });

  it('serves a size larger than a block, unpadded base64url', () => {
    const value = randomBase64url(5000);
    expect(value).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(value, 'base64url')).toHaveLength(5000);
  });
});
