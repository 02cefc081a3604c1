import { describe, expect, it } from 'vitest';
import { evaluateRequestToken, holdsAnyScope, judgeToken, requiredScopes } from '../../packages/guard/src/token-evaluation.js';
import type { GuardToken } from '../../packages/guard/src/types.js';

const NOW = 1_800_000_000_000;
const valid: GuardToken = { active: true, scopes: ['read', 'write'], clientId: 'c', resourceOwnerId: 1, expiresAt: NOW / 1000 + 60 };

describe('guard: judging a looked-up token', () => {
  it('accepts an active token before its exp', () => {
    expect(judgeToken(valid, NOW)).toEqual({ token: valid, problem: null });
    expect(judgeToken({ ...valid, expiresAt: null }, NOW).problem).toBeNull();
  });

  it('refuses unknown and inactive tokens with their reason (reference 12.2)', () => {
    expect(judgeToken(null, NOW)).toEqual({ token: null, problem: 'unknown' });
    expect(judgeToken({ ...valid, active: false, reason: 'revoked' }, NOW).problem).toBe('revoked');
    expect(judgeToken({ ...valid, active: false }, NOW).problem).toBe('unknown');
  });

  it('refuses a token whose exp has passed even when the source calls it active', () => {
    expect(judgeToken({ ...valid, expiresAt: NOW / 1000 }, NOW).problem).toBe('expired');
  });

  it('does not look up when no token or a malformed one was sent', async () => {
    const never = async (): Promise<GuardToken | null> => {
      throw new Error('looked up');
    };
    expect(await evaluateRequestToken(undefined, never, () => NOW)).toEqual({ token: null, problem: 'missing' });
    expect(await evaluateRequestToken('MAC x', never, () => NOW)).toEqual({ token: null, problem: 'missing' });
    expect(await evaluateRequestToken('Bearer a b', never, () => NOW)).toEqual({ token: null, problem: 'unknown' });
  });
});

describe('guard: scope requirements (seed, reference 8.5)', () => {
  it('is satisfied by any one of the listed scopes, or by any valid token when none are listed', () => {
    expect(holdsAnyScope(valid, ['admin', 'write'])).toBe(true);
    expect(holdsAnyScope(valid, ['admin'])).toBe(false);
    expect(holdsAnyScope(valid, [])).toBe(true);
    expect(holdsAnyScope({ ...valid, scopes: [] }, ['read'])).toBe(false);
  });

  it('compares scopes case-sensitively (RFC 6749 section 3.3)', () => {
    expect(holdsAnyScope(valid, ['READ'])).toBe(false);
  });

  it('refuses a space-separated list or an empty scope at route definition', () => {
    expect(() => requiredScopes(['read write'])).toThrow(/one scope per argument/);
    expect(() => requiredScopes([''])).toThrow(TypeError);
    expect(requiredScopes(['read', 'read', 'write'])).toEqual(['read', 'write']);
  });
});
