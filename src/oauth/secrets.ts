import { Buffer } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase64url } from './random-pool.js';

// Tokens, codes, uids and generated client secrets: 32 random bytes (256 bits), base64url without padding,
// 43 characters (SPEC 4, reference 17.3). RFC 6749 section 10.10: the probability of guessing one must be
// negligible.
export function generateSecret(): string {
  return randomBase64url(32);
}

// A client id is typed on command lines (`oauth-service apps show <uid>`), where a leading '-' reads as an option:
// 1 in 64 generated values would start with one. Redrawing those costs log2(64/63) of 256 bits.
export function generateClientId(): string {
  for (;;) {
    const value = generateSecret();
    if (!value.startsWith('-')) return value;
  }
}

// Lowercase hex SHA-256, the stored form of hashed tokens and secrets (reference 17.4). A fast hash is enough
// because generated secrets carry 256 bits of entropy; human passwords use argon2id elsewhere.
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

// RFC 6749 section 10.3 / RFC 9700: secrets are compared in constant time. Hashing both sides first gives two
// 32-byte buffers, so neither the length nor the content of the expected value leaks through timing.
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}

// A presented secret against its stored SHA-256 (hashApplicationSecrets): both are 64 hex characters, compared as
// they are in constant time. Hashing both again (constantTimeEqual, for values whose lengths may differ) would add
// two SHA-256 to every client authentication (issue 21). A stored value of another length is no hash: no match.
function hashedSecretMatches(plain: string, storedHash: string): boolean {
  const presented = Buffer.from(sha256Hex(plain));
  const stored = Buffer.from(storedHash);
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Whether a presented client secret is the stored one, whichever form it was stored in: the setting
 * (hashApplicationSecrets) may have changed since, and every client would be locked out until its secret is rotated
 * (Doorkeeper's `fallback: :plain`). A SHA-256 is matched by hashing the secret; a stored value that is no SHA-256 (one
 * kept from before hashing was on; generated secrets are 43 base64url characters) by comparing it as it is. Never the
 * stored hash as it is while hashing is on: a copy of the table must not be a list of credentials.
 */
export function clientSecretMatches(plain: string, stored: string, hashingOn: boolean): boolean {
  const storedAsHash = SHA256_HEX.test(stored);
  const asHash = storedAsHash && hashedSecretMatches(plain, stored);
  const asItIs = (!hashingOn || !storedAsHash) && constantTimeEqual(plain, stored);
  return asHash || asItIs;
}

// What goes into the database for a plaintext token or secret, under hashTokens / hashApplicationSecrets.
export function storedForm(plain: string, hashed: boolean): string {
  return hashed ? sha256Hex(plain) : plain;
}
