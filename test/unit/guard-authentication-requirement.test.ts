import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { authenticationShortfall, checkedRequirement } from '../../packages/guard/src/authentication-requirement.js';
import { bearerChallenge } from '../../packages/guard/src/challenge.js';
import { GuardError } from '../../packages/guard/src/guard-error.js';
import { jwtGuardToken } from '../../packages/guard/src/jwt-verification.js';
import { serviceGuard } from '../../packages/guard/src/plugin.js';
import { toGuardToken } from '../../packages/guard/src/remote-introspection.js';
import type { GuardToken } from '../../packages/guard/src/types.js';

// RFC 9470 at the guard: the requirement checked when defined, what falls short, the challenge, and where the token's
// acr and auth_time come from (introspection, section 6.1; a JWT access token's claims).

const NOW_MS = Date.parse('2026-12-05T12:00:00Z');
const token = (authTime: number | null, acr: string | null): GuardToken => ({
  active: true,
  scopes: ['read'],
  clientId: 'c',
  resourceOwnerId: 'u',
  expiresAt: null,
  authTime,
  acr,
});

describe('guard: requireAuthentication (RFC 9470)', () => {
  it('is checked when defined: a list of acr values and/or whole seconds, nothing else', () => {
    expect(checkedRequirement(undefined, 'x')).toBe(null);
    expect(checkedRequirement({ acr: ['urn:a'], maxAge: 60 }, 'x')).toEqual({ acr: ['urn:a'], maxAge: 60 });
    expect(checkedRequirement({ maxAge: 0 }, 'x')).toEqual({ acr: [], maxAge: 0 });
    expect(() => checkedRequirement({}, 'route GET /a')).toThrow('route GET /a: requireAuthentication needs acr or maxAge');
    expect(() => checkedRequirement({ maxAge: 1.5 }, 'x')).toThrow('maxAge must be a whole number of seconds');
    expect(() => checkedRequirement({ acr: ['has space'] }, 'x')).toThrow('acr must be a list of acr values');
    expect(() => checkedRequirement({ acr: 'urn:a' as unknown as string[] }, 'x')).toThrow('acr must be a list');
  });

  it('a mistake fails the registration of the guard, or the definition of the route', async () => {
    const introspect = async () => null;
    const guard = Fastify().register(serviceGuard, { introspect, requireAuthentication: { maxAge: -1 } });
    await expect(guard.ready()).rejects.toThrow('serviceGuard: requireAuthentication.maxAge must be a whole number of seconds');
    const app = Fastify();
    await app.register(serviceGuard, { introspect });
    const define = () =>
      app.post('/pay', { config: { requireAuthentication: { acr: [] } }, preHandler: app.serviceAuthorize() }, async () => 'paid');
    expect(define).toThrow('route POST /pay: requireAuthentication needs acr or maxAge');
    await app.close();
  });

  it('refuses an acr not listed (or none), then a sign-in older than maxAge (or of unknown time)', () => {
    const both = checkedRequirement({ acr: ['urn:a', 'urn:b'], maxAge: 60 }, 'x')!;
    expect(authenticationShortfall(token(NOW_MS / 1000 - 60, 'urn:b'), both, NOW_MS)).toBe(null);
    expect(authenticationShortfall(token(NOW_MS / 1000, 'urn:c'), both, NOW_MS)).toBe('A different authentication level is required');
    expect(authenticationShortfall(token(NOW_MS / 1000, null), both, NOW_MS)).toBe('A different authentication level is required');
    expect(authenticationShortfall(token(NOW_MS / 1000 - 61, 'urn:a'), both, NOW_MS)).toBe('More recent authentication is required');
    expect(authenticationShortfall(token(null, 'urn:a'), both, NOW_MS)).toBe('More recent authentication is required');
    // auth_time is in whole seconds: maxAge 0 takes a sign-in of this second, 999 ms into it too.
    const now = checkedRequirement({ maxAge: 0 }, 'x')!;
    const second = Math.floor(NOW_MS / 1000);
    expect(authenticationShortfall(token(second, null), now, second * 1000 + 999)).toBe(null);
    expect(authenticationShortfall(token(second - 1, null), now, second * 1000 + 999)).toBe('More recent authentication is required');
  });

  it('the challenge names insufficient_user_authentication, acr_values and max_age (section 3)', () => {
    const requirement = checkedRequirement({ acr: ['urn:a', 'urn:b'], maxAge: 60 }, 'x')!;
    const error = GuardError.insufficientUserAuthentication('More recent authentication is required', requirement);
    expect(error.status).toBe(401);
    expect(bearerChallenge('api', error)).toBe(
      'Bearer realm="api", error="insufficient_user_authentication", error_description="More recent authentication is required", acr_values="urn:a urn:b", max_age="60"',
    );
    const acrOnly = GuardError.insufficientUserAuthentication('x', checkedRequirement({ acr: ['urn:a'] }, 'x')!);
    expect(bearerChallenge('api', acrOnly)).not.toContain('max_age');
  });

  it('reads auth_time and acr from introspection and from a JWT, ignoring values of the wrong type', () => {
    const introspected = toGuardToken({ active: true, token_type: 'Bearer', auth_time: 1700000000, acr: 'urn:a' });
    expect(introspected).toMatchObject({ authTime: 1700000000, acr: 'urn:a' });
    const odd = toGuardToken({ active: true, token_type: 'Bearer', auth_time: '1700000000', acr: 2 })!;
    expect([odd.authTime, odd.acr]).toEqual([undefined, undefined]);
    expect(jwtGuardToken({ sub: 'u', client_id: 'c', auth_time: 1700000001, acr: 'urn:b' })).toMatchObject({
      authTime: 1700000001,
      acr: 'urn:b',
    });
  });
});
