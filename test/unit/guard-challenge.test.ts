import { describe, expect, it } from 'vitest';
import { bearerChallenge, headerSafe } from '../../packages/guard/src/challenge.js';
import { GuardError, GuardUnavailableError } from '../../packages/guard/src/guard-error.js';

describe('guard: WWW-Authenticate challenges (RFC 6750 section 3)', () => {
  it('has only the realm when no token was sent (section 3.1)', () => {
    expect(bearerChallenge('api', GuardError.invalidToken('missing'))).toBe('Bearer realm="api"');
  });

  it('names invalid_token and the reason for an unknown, revoked or expired token', () => {
    expect(bearerChallenge('api', GuardError.invalidToken('unknown'))).toBe(
      'Bearer realm="api", error="invalid_token", error_description="The access token is invalid"',
    );
    expect(bearerChallenge('api', GuardError.invalidToken('revoked'))).toContain('error_description="The access token was revoked"');
    expect(bearerChallenge('api', GuardError.invalidToken('expired'))).toContain('error_description="The access token expired"');
  });

  it('names insufficient_scope with the scope, quotes in the description replaced by "_" (reference 2.3)', () => {
    expect(bearerChallenge('api', GuardError.insufficientScope(['write', 'admin']))).toBe(
      'Bearer realm="api", error="insufficient_scope", error_description="Access to this resource requires scope _write admin_.", scope="write admin"',
    );
  });

  it('replaces every character outside %x20-21 / %x23-5B / %x5D-7E by "_"', () => {
    expect(headerSafe('a"b\\c\u00e9d\r\ne\tf !#[]~')).toBe('a_b_c_d__e_f !#[]~');
    expect(bearerChallenge('my "realm"', GuardError.invalidToken('missing'))).toBe('Bearer realm="my _realm_"');
  });
});

describe('guard: error bodies (reference 2.4, SPEC 8)', () => {
  it('uses the reference descriptions', () => {
    expect(GuardError.invalidToken('missing').toJSON()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token is invalid',
    });
    expect(GuardError.invalidToken('revoked').toJSON().error_description).toBe('The access token was revoked');
    expect(GuardError.invalidToken('expired').toJSON().error_description).toBe('The access token expired');
    expect(GuardError.insufficientScope(['a', 'b']).toJSON()).toEqual({
      error: 'insufficient_scope',
      error_description: 'Access to this resource requires scope "a b".',
    });
    expect(GuardError.insufficientScope(['a']).status).toBe(403);
    expect(GuardError.invalidToken('unknown').status).toBe(401);
  });

  it('answers temporarily_unavailable with status 503 when the token cannot be verified', () => {
    const error = new GuardUnavailableError('connect ECONNREFUSED');
    expect(error.statusCode).toBe(503);
    expect(error.message).toBe('connect ECONNREFUSED');
    expect(error.toJSON().error).toBe('temporarily_unavailable');
    expect(error.toJSON().error_description).not.toContain('ECONNREFUSED');
  });
});
