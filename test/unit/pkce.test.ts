import { describe, it, expect } from 'vitest';
import { isValidCodeChallenge, isValidCodeVerifier, s256Challenge, verifyCodeVerifier } from '../../src/oauth/authorization/pkce.js';

// RFC 7636 appendix B: the 32 octets of the example verifier, its base64url form and its S256 challenge.
const VERIFIER_OCTETS = [
  116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132,
  141, 121,
];
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('code_verifier syntax (RFC 7636 section 4.1)', () => {
  it('accepts 43 to 128 unreserved characters', () => {
    expect(isValidCodeVerifier(VERIFIER)).toBe(true);
    expect(isValidCodeVerifier('a'.repeat(43))).toBe(true);
    expect(isValidCodeVerifier('a'.repeat(128))).toBe(true);
    expect(isValidCodeVerifier('aA0-._~'.repeat(7))).toBe(true);
  });

  it('rejects too short, too long, and characters outside [A-Za-z0-9-._~]', () => {
    expect(isValidCodeVerifier('a'.repeat(42))).toBe(false);
    expect(isValidCodeVerifier('a'.repeat(129))).toBe(false);
    expect(isValidCodeVerifier(`${'a'.repeat(42)}+`)).toBe(false);
    expect(isValidCodeVerifier(`${'a'.repeat(42)}=`)).toBe(false);
    expect(isValidCodeVerifier(`${'a'.repeat(42)} `)).toBe(false);
    expect(isValidCodeVerifier(`${'a'.repeat(43)}\n`)).toBe(false);
    expect(isValidCodeVerifier('')).toBe(false);
  });
});

describe('code_challenge syntax (RFC 7636 section 4.2)', () => {
  it('S256: exactly 43 base64url characters', () => {
    expect(isValidCodeChallenge(CHALLENGE, 'S256')).toBe(true);
    expect(isValidCodeChallenge(`${CHALLENGE}=`, 'S256')).toBe(false);
    expect(isValidCodeChallenge(CHALLENGE.slice(1), 'S256')).toBe(false);
    expect(isValidCodeChallenge(`${CHALLENGE.slice(1)}.`, 'S256')).toBe(false);
    expect(isValidCodeChallenge('a'.repeat(44), 'S256')).toBe(false);
  });

  it('plain: the verifier grammar', () => {
    expect(isValidCodeChallenge('a'.repeat(128), 'plain')).toBe(true);
    expect(isValidCodeChallenge('a~.'.repeat(15), 'plain')).toBe(true);
    expect(isValidCodeChallenge('a'.repeat(42), 'plain')).toBe(false);
  });

  it('unknown or wrongly cased methods are not valid', () => {
    expect(isValidCodeChallenge(CHALLENGE, 's256')).toBe(false);
    expect(isValidCodeChallenge(CHALLENGE, 'RS256')).toBe(false);
    expect(isValidCodeChallenge(CHALLENGE, '')).toBe(false);
  });
});

describe('code_verifier verification (RFC 7636 section 4.6)', () => {
  it('S256 matches RFC 7636 appendix B', () => {
    expect(Buffer.from(VERIFIER_OCTETS).toString('base64url')).toBe(VERIFIER);
    expect(s256Challenge(VERIFIER)).toBe(CHALLENGE);
    expect(verifyCodeVerifier(VERIFIER, CHALLENGE, 'S256')).toBe(true);
  });

  it('S256 rejects a 44-character "challenge" (no SHA-256 digest encodes to that length)', () => {
    expect(verifyCodeVerifier('dBjftJeZ4CVP-mJ92K27uhbUJU2p1ALxcrx3dAqzkLE', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuVG_-OaXIOM', 'S256')).toBe(
      false,
    );
  });

  it('S256 rejects another verifier, and the challenge itself presented as the verifier', () => {
    expect(verifyCodeVerifier(`${VERIFIER.slice(0, -1)}M`, CHALLENGE, 'S256')).toBe(false);
    expect(verifyCodeVerifier(CHALLENGE, CHALLENGE, 'S256')).toBe(false);
  });

  it('plain compares the verifier with the challenge', () => {
    expect(verifyCodeVerifier(VERIFIER, VERIFIER, 'plain')).toBe(true);
    expect(verifyCodeVerifier(VERIFIER, CHALLENGE, 'plain')).toBe(false);
  });

  it('a malformed verifier never matches, even when it equals a plain challenge', () => {
    expect(verifyCodeVerifier('short', 'short', 'plain')).toBe(false);
    expect(verifyCodeVerifier('', '', 'plain')).toBe(false);
  });

  it('unknown methods never match', () => {
    expect(verifyCodeVerifier(VERIFIER, CHALLENGE, 's256')).toBe(false);
    expect(verifyCodeVerifier(VERIFIER, VERIFIER, 'PLAIN')).toBe(false);
    expect(verifyCodeVerifier(VERIFIER, CHALLENGE, '')).toBe(false);
  });

  it('non-string input (a repeated parameter arrives as an array) is a mismatch, not an exception', () => {
    const array = [VERIFIER] as unknown as string;
    expect(verifyCodeVerifier(array, CHALLENGE, 'S256')).toBe(false);
    expect(verifyCodeVerifier(VERIFIER, undefined as unknown as string, 'S256')).toBe(false);
  });
});
