import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../secrets.js';

// RFC 7636 section 4.1: code_verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~".
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
// RFC 7636 section 4.2: S256 challenge = BASE64URL(SHA256(verifier)), always 43 characters without padding.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isValidCodeVerifier(verifier: string): boolean {
  return typeof verifier === 'string' && CODE_VERIFIER.test(verifier);
}

// Which methods the server accepts is config (pkce.methods); this only checks the shape for a known method.
export function isValidCodeChallenge(challenge: string, method: string): boolean {
  if (typeof challenge !== 'string') return false;
  if (method === 'S256') return S256_CHALLENGE.test(challenge);
  // RFC 7636 section 4.2: with plain, code_challenge = code_verifier, so the same grammar applies.
  if (method === 'plain') return CODE_VERIFIER.test(challenge);
  return false;
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'utf8').digest('base64url');
}

// RFC 7636 section 4.6: recompute the challenge from the verifier and compare. Constant time, so the stored
// challenge does not leak; malformed input and unknown methods are simply a mismatch (invalid_grant upstream).
export function verifyCodeVerifier(verifier: string, challenge: string, method: string): boolean {
  if (typeof verifier !== 'string' || typeof challenge !== 'string') return false;
  if (!CODE_VERIFIER.test(verifier)) return false;
  if (method === 'S256') return constantTimeEqual(s256Challenge(verifier), challenge);
  if (method === 'plain') return constantTimeEqual(verifier, challenge);
  return false;
}
