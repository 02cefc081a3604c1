import { randomInt } from 'node:crypto';
import { sha256Hex } from '../secrets.js';

// RFC 8628 section 6.1: user codes are typed by people, so they come from an alphabet without vowels (no words) and
// without characters read alike (0/O, 1/I/L, 5/S ... here only consonants remain), 8 of them: 20^8, about 34.5 bits,
// against guessing limited per address and per code (user-code-limits.ts, config deviceAuthorization).

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const LENGTH = 8;

/** A new user code as shown to people: XXXX-XXXX. */
export function generateUserCode(): string {
  let code = '';
  for (let index = 0; index < LENGTH; index++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * Section 6.1: what a person typed, case and dashes or spaces ignored; null when it cannot be a user code at all
 * (which still counts as a wrong code: the shape of a guess says nothing about who guesses).
 */
export function normalizedUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== LENGTH) return null;
  return [...code].every((character) => USER_CODE_ALPHABET.includes(character)) ? code : null;
}

/** A typed user code as the device shows it (XXXX-XXXX), for the person to compare; as typed if it is none. */
export function displayedUserCode(input: string): string {
  const code = normalizedUserCode(input);
  return code === null ? input.toUpperCase() : `${code.slice(0, LENGTH / 2)}-${code.slice(LENGTH / 2)}`;
}

/** The stored form of a user code (normalized first): SHA-256 hex, as every code here. */
export const storedUserCode = (normalized: string): string => sha256Hex(normalized);
