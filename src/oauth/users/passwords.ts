/**
 * Human passwords (users, admin) are hashed with argon2id (SPEC 4); the domain only needs these two
 * operations, implemented in src/storage/argon2-hasher.ts so the domain stays free of native modules.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password or a malformed hash; never throws for bad input. */
  verify(hash: string, password: string): Promise<boolean>;
}

/** Checks a user's password; spends the same time whether or not the user exists (no username probing). */
export async function verifyUserPassword(
  hasher: PasswordHasher,
  user: { passwordHash: string } | null,
  password: string,
): Promise<boolean> {
  const ok = await hasher.verify(user?.passwordHash ?? DUMMY_HASH, password);
  return user !== null && ok;
}

/**
 * A stored argon2id hash in its PHC string form ($argon2id$v=19$m=...,t=...,p=...$salt$hash), as hash() makes it and
 * `admin hash-password` prints it: the form a provisioning file may declare a user's password in.
 */
export function isArgon2idHash(value: string): boolean {
  return /^\$argon2id\$v=19\$m=\d{1,6},t=\d{1,3},p=\d{1,2}\$[A-Za-z0-9+/]{11,86}\$[A-Za-z0-9+/]{16,86}$/.test(value);
}

// argon2id of a random string nobody knows, verified when the user does not exist.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$8oMUBbGPp6pU8bDFTB9+Z1BSSlaKFTKRsI3mZIWKZ2Y';
