import type { UserRecord } from '../store.js';
import type { UserStore } from './user-store.js';

// A user name reads the same in either Unicode form of an accented letter ("é" as one code point, or "e" and a
// combining accent, as some keyboards and copied file names give it): it is stored in NFC (RFC 8265 section 3.4), a
// name typed in either form finds the same user, and the failure limits count both forms as one name.

/** The form a user name is stored and counted in. */
export const canonicalUsername = (name: string): string => name.normalize('NFC');

/**
 * The user `typed` names: stored as typed, else under its NFC form, else its decomposed one (a name stored before
 * names were stored in NFC); or null. An ASCII name has one form: one read.
 */
export async function findUserNamed(users: Pick<UserStore, 'findByUsername'>, typed: string): Promise<UserRecord | null> {
  for (const name of new Set([typed, canonicalUsername(typed), typed.normalize('NFD')])) {
    const user = await users.findByUsername(name);
    if (user !== null) return user;
  }
  return null;
}
