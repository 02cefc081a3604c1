import { describe, expect, it } from 'vitest';
import { cacheKey, IntrospectionCache } from '../../packages/guard/src/introspection-cache.js';
import type { GuardToken } from '../../packages/guard/src/types.js';

const T0 = 1_800_000_000_000;

function setup(overrides: { maxEntries?: number; ttlSeconds?: number } = {}) {
  const clock = { ms: T0 };
  const cache = new IntrospectionCache({ ttlSeconds: 30, negativeTtlSeconds: 5, maxEntries: 100, now: () => clock.ms, ...overrides });
  return { cache, clock, advance: (seconds: number) => (clock.ms += seconds * 1000) };
}

function active(expiresAt: number | null): GuardToken {
  return { active: true, scopes: ['read'], clientId: 'c', resourceOwnerId: null, expiresAt };
}

describe('guard: introspection cache', () => {
  it('keys entries by the SHA-256 of the token, never the token itself', () => {
    expect(cacheKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('keeps an active answer for the TTL, then forgets it', () => {
    const { cache, advance } = setup();
    cache.set('k', active(null));
    advance(29.999);
    expect(cache.get('k')?.value?.active).toBe(true);
    advance(0.001);
    expect(cache.get('k')).toBeUndefined();
  });

  it('never keeps an active answer past the token exp, even with a longer TTL', () => {
    const { cache, advance } = setup();
    cache.set('k', active(T0 / 1000 + 2));
    advance(1.999);
    expect(cache.get('k')).toBeDefined();
    advance(0.001);
    expect(cache.get('k')).toBeUndefined();
  });

  it('does not store an answer for a token already past its exp', () => {
    const { cache } = setup();
    cache.set('k', active(T0 / 1000 - 1));
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps an inactive answer (null) only for the short negative TTL', () => {
    const { cache, advance } = setup();
    cache.set('unknown', null);
    cache.set('revoked', { ...active(null), active: false });
    advance(4.9);
    expect(cache.get('unknown')).toEqual({ value: null });
    expect(cache.get('revoked')?.value?.active).toBe(false);
    advance(0.1);
    expect(cache.get('unknown')).toBeUndefined();
    expect(cache.get('revoked')).toBeUndefined();
  });

  it('evicts the oldest entry when full', () => {
    const { cache } = setup({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) cache.set(key, active(null));
    cache.set('a', active(null)); // re-set moves "a" to the newest position
    cache.set('d', active(null));
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].every((key) => cache.get(key) !== undefined)).toBe(true);
  });

  it('stores nothing with maxEntries 0 or a TTL of 0', () => {
    const off = setup({ maxEntries: 0 });
    off.cache.set('k', active(null));
    expect(off.cache.size).toBe(0);
    const noTtl = setup({ ttlSeconds: 0 });
    noTtl.cache.set('k', active(null));
    expect(noTtl.cache.get('k')).toBeUndefined();
  });
});
