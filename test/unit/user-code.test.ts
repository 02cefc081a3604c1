import { describe, expect, it } from 'vitest';
import { generateUserCode, normalizedUserCode, USER_CODE_ALPHABET } from '../../src/oauth/device/user-code.js';

// RFC 8628 section 6.1: user codes people type, from an alphabet without vowels and look-alikes.

describe('user codes (RFC 8628 section 6.1)', () => {
  it('are XXXX-XXXX from BCDFGHJKLMNPQRSTVWXZ, and differ', () => {
    const codes = Array.from({ length: 200 }, generateUserCode);
    for (const code of codes) expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(new Set(codes).size).toBe(codes.length);
    expect(USER_CODE_ALPHABET).toHaveLength(20);
  });

  it.each([
    ['WDJB-MJHT', 'WDJBMJHT'],
    ['wdjb-mjht', 'WDJBMJHT'],
    [' WDJB MJHT ', 'WDJBMJHT'],
    ['WDJBMJHT', 'WDJBMJHT'],
  ])('%j is read as %s (case, spaces and dashes ignored)', (typed, normalized) => {
    expect(normalizedUserCode(typed)).toBe(normalized);
  });

  it.each(['WDJB-MJH', 'WDJB-MJHTX', 'AEIO-UAEI', 'WDJB-MJH1', '', 'WDJB_MJHT'])('%j cannot be a user code', (typed) => {
    expect(normalizedUserCode(typed)).toBeNull();
  });
});
