import { describe, expect, it } from 'vitest';
import {
  acrForAmr,
  describedSignIn,
  levelOfAmr,
  reachableAcrValues,
  satisfiedAcr,
  satisfiesRequirement,
  signInClaims,
  targetLevel,
  type AuthenticationContext,
} from '../../src/oauth/authentication-context.js';

// What a sign-in was (RFC 8176 amr) and what that makes it (config authentication.acr), and the one rule that decides
// whether the session's sign-in is enough for an authorization request (acr_values, an essential acr, max_age).

const ACR = { pwd: 'urn:x:pwd', mfa: 'urn:x:mfa', phr: 'urn:x:phr' };
const NOW = new Date('2026-12-05T12:00:00Z');
const secondsAgo = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);
const signIn = (amr: string[], seconds = 10, acr: string | null = null): AuthenticationContext => ({
  authTime: secondsAgo(seconds),
  amr,
  acr,
});

describe('amr to acr (RFC 8176 section 2)', () => {
  it('a password alone is pwd; a password and a one-time code, or any two factors, mfa; a key of this origin phr', () => {
    expect(levelOfAmr(['pwd'])).toBe('pwd');
    expect(levelOfAmr(['pwd', 'otp'])).toBe('mfa');
    expect(levelOfAmr(['otp', 'fpt'])).toBe('mfa');
    expect(levelOfAmr(['mfa', 'pwd', 'otp'])).toBe('mfa');
    expect(levelOfAmr(['hwk'])).toBe('phr');
    expect(levelOfAmr(['swk', 'user'])).toBe('phr');
    expect(levelOfAmr(['pwd', 'hwk'])).toBe('phr');
  });

  it('two methods of one factor are not two factors; unknown methods reach nothing', () => {
    expect(levelOfAmr(['pwd', 'pin'])).toBe('pwd');
    expect(levelOfAmr(['otp', 'sms'])).toBe(null);
    expect(levelOfAmr([])).toBe(null);
    expect(levelOfAmr(['wia'])).toBe(null);
  });

  it('gives the configured acr of the level', () => {
    expect(acrForAmr(['pwd'], ACR)).toBe('urn:x:pwd');
    expect(acrForAmr(['pwd', 'otp'], ACR)).toBe('urn:x:mfa');
    expect(acrForAmr(['swk'], ACR)).toBe('urn:x:phr');
    expect(acrForAmr([], ACR)).toBe(null);
  });
});

describe('the sign-in as tokens show it', () => {
  it('a sign-in recorded before amr was (auth_time only) was a password sign-in', () => {
    expect(describedSignIn({ authTime: NOW, amr: [], acr: null }, ACR)).toEqual({ authTime: NOW, amr: ['pwd'], acr: 'urn:x:pwd' });
    expect(describedSignIn({ authTime: null, amr: [], acr: null }, ACR)).toEqual({ authTime: null, amr: [], acr: null });
  });

  it('auth_time in seconds, acr and amr; nothing without a sign-in', () => {
    expect(signInClaims(signIn(['pwd', 'otp'], 0, 'urn:x:mfa'), ACR)).toEqual({
      auth_time: NOW.getTime() / 1000,
      acr: 'urn:x:mfa',
      amr: ['pwd', 'otp'],
    });
    expect(signInClaims({ authTime: null, amr: ['pwd'], acr: 'urn:x:pwd' }, ACR)).toEqual({});
  });
});

describe('whether the session satisfies the request (OpenID Connect Core 3.1.2.1, 5.5.1.1)', () => {
  it('max_age: a sign-in older than it, or of unknown time, must be redone', () => {
    expect(satisfiesRequirement(signIn(['pwd'], 60), { acrValues: [], maxAge: 60 }, ACR, NOW)).toBe(true);
    expect(satisfiesRequirement(signIn(['pwd'], 61), { acrValues: [], maxAge: 60 }, ACR, NOW)).toBe(false);
    expect(satisfiesRequirement({ authTime: null, amr: ['pwd'], acr: null }, { acrValues: [], maxAge: 60 }, ACR, NOW)).toBe(false);
  });

  it('acr_values: the first value a sign-in here can reach is the target; none reachable asks nothing', () => {
    expect(targetLevel(['urn:x:mfa', 'urn:x:pwd'], ACR)).toBe('mfa');
    expect(targetLevel(['urn:x:phr', 'urn:x:pwd'], ACR, ['pwd', 'mfa'])).toBe('pwd');
    expect(targetLevel(['urn:x:phr', 'urn:other'], ACR, ['pwd', 'mfa'])).toBe(null);
    expect(reachableAcrValues(ACR)).toEqual(['urn:x:pwd', 'urn:x:mfa', 'urn:x:phr']);
    expect(satisfiesRequirement(signIn(['pwd']), { acrValues: ['urn:x:mfa'], maxAge: null }, ACR, NOW)).toBe(false);
    expect(satisfiesRequirement(signIn(['pwd']), { acrValues: ['urn:other'], maxAge: null }, ACR, NOW)).toBe(true);
    expect(satisfiesRequirement(signIn(['pwd']), { acrValues: ['urn:x:pwd'], maxAge: null }, ACR, NOW)).toBe(true);
    expect(satisfiesRequirement({ authTime: NOW, amr: ['wia'], acr: null }, { acrValues: ['urn:x:pwd'], maxAge: null }, ACR, NOW)).toBe(
      false,
    );
  });

  it('once a second factor can be had, a weaker session must sign in again and a stronger one need not', () => {
    const reachable = ['pwd', 'mfa'] as const;
    const mfa = { acrValues: ['urn:x:mfa'], maxAge: null };
    expect(satisfiesRequirement(signIn(['pwd'], 10, 'urn:x:pwd'), mfa, ACR, NOW, reachable)).toBe(false);
    expect(satisfiesRequirement(signIn(['pwd', 'otp'], 10, 'urn:x:mfa'), mfa, ACR, NOW, reachable)).toBe(true);
    expect(satisfiesRequirement(signIn(['hwk'], 10, 'urn:x:phr'), mfa, ACR, NOW, reachable)).toBe(true);
    expect(satisfiesRequirement(signIn(['pwd', 'otp'], 10, 'urn:x:mfa'), { ...mfa, maxAge: 5 }, ACR, NOW, reachable)).toBe(false);
  });
});

// Core 3.1.2.1: the acr returned is the class the sign-in satisfied among those asked for. A passkey sign-in asked for
// mfa said phr, and an API requiring exactly mfa (the guard's requireAuthentication) refused it after every step-up.
describe('the acr a request gets (OpenID Connect Core 3.1.2.1)', () => {
  it("the first value asked for that the sign-in meets, in order of preference; else the sign-in's own", () => {
    const passkey = signIn(['hwk'], 10, 'urn:x:phr');
    expect(satisfiedAcr(passkey, ['urn:x:mfa'], ACR)).toBe('urn:x:mfa');
    expect(satisfiedAcr(passkey, [], ACR)).toBe('urn:x:phr');
    expect(satisfiedAcr(passkey, ['urn:other', 'urn:x:pwd'], ACR)).toBe('urn:x:pwd');
    const twoFactors = signIn(['pwd', 'otp'], 10, 'urn:x:mfa');
    expect(satisfiedAcr(twoFactors, ['urn:x:phr', 'urn:x:mfa'], ACR)).toBe('urn:x:mfa');
    expect(satisfiedAcr(twoFactors, ['urn:x:phr'], ACR)).toBe('urn:x:mfa');
    // A session from before acr was recorded: its amr says what it reached; nothing asked of it that it meets keeps null.
    expect(satisfiedAcr(signIn(['pwd', 'otp']), ['urn:x:pwd'], ACR)).toBe('urn:x:pwd');
    expect(satisfiedAcr(signIn(['pwd']), ['urn:x:mfa'], ACR)).toBe(null);
  });
});
