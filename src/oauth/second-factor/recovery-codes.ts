import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RecoveryCodeRecord } from './second-factor-store.js';

// Recovery codes: ten at a time, each 80 random bits written as four groups of four characters of Crockford's base32
// (no I, L, O, U: nothing to misread). That much entropy needs no slow hash: SHA-256 of the code is what is stored.

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let text = '';
  for (let index = 0; index < 16; index++) text = ALPHABET[Number((bits >> BigInt(index * 5)) & 31n)]! + text;
  return text.match(/.{4}/g)!.join('-');
}

export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);

/** How a code typed by a person compares: any case, without the dashes and spaces. */
const normalized = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

export const recoveryCodeHash = (code: string): string => createHash('sha256').update(normalized(code)).digest('hex');

/** Whether the text could be a recovery code at all (before any look-up). */
export const looksLikeRecoveryCode = (code: string): boolean => /^[0-9A-Z]{16}$/.test(normalized(code));

/** The stored code `code` is, compared in constant time against every unused one, or null. */
export function matchingRecoveryCode(code: string, stored: readonly RecoveryCodeRecord[]): RecoveryCodeRecord | null {
  const hash = Buffer.from(recoveryCodeHash(code), 'hex');
  let match: RecoveryCodeRecord | null = null;
  for (const candidate of stored) {
    const candidateHash = Buffer.from(candidate.codeHash, 'hex');
    if (candidateHash.length === hash.length && timingSafeEqual(candidateHash, hash)) match = candidate;
  }
  return match;
}
