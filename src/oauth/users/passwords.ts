/**
 * Human passwords (users, admin) are hashed with argon2id (SPEC 4); the domain only needs these two
 * operations, implemented in src/storage/argon2-hasher.ts so the domain stays free of native modules.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password or a malformed hash; never throws for bad input. */
  verify(hash: string, password: string): Promise<boolean>;
}

/**
 * The form a password is hashed in: NFKC (NIST SP 800-63B section 5.1.1.2), so that it matches however the keyboard
 * of the day composes it ("é" as one code point or as e and a combining accent, full-width digits or ASCII ones).
 */
export const hashedPasswordForm = (password: string): string => password.normalize('NFKC');

/** A password's length as the rules count it: code points of its hashed form (a combining accent is no character more). */
export const passwordLength = (password: string): number => [...hashedPasswordForm(password)].length;

/**
 * Whether `password` matches `hash` as typed (a hash made before passwords were normalized holds that form) or in its
 * hashed form. The same work for any hash of the same password: a password with one form is checked once.
 */
export async function passwordMatches(hasher: PasswordHasher, hash: string, password: string): Promise<boolean> {
  for (const form of new Set([password, hashedPasswordForm(password)])) if (await hasher.verify(hash, form)) return true;
  return false;
}

/** Checks a user's password; spends the same time whether or not the user exists (no username probing). */
export async function verifyUserPassword(
  hasher: PasswordHasher,
  user: { passwordHash: string } | null,
  password: string,
): Promise<boolean> {
  const ok = await passwordMatches(hasher, user?.passwordHash ?? DUMMY_HASH, password);
  return user !== null && ok;
}

/**
 * A stored argon2id hash in its PHC string form ($argon2id$v=19$m=...,t=...,p=...$salt$hash), as hash() makes it and
 * `admin hash-password` prints it: the form a provisioning file may declare a user's password in.
 */
export function isArgon2idHash(value: string): boolean {
  return /^\$argon2id\$v=19\$m=\d{1,6},t=\d{1,3},p=\d{1,2}\$[A-Za-z0-9+/]{11,86}\$[A-Za-z0-9+/]{16,86}$/.test(value);
}

// The costs a declared hash may have (a data lifecycle audit): at least OWASP's equivalent-strength options for argon2id
// (m=47104,t=1 ... m=7168,t=5: m×t at least 35,840 KiB, m at least 7 MiB), so that a file cannot keep a password under
// a hash a GPU breaks at once; and at most what one sign-in may cost here (128 MiB, 10 passes, 8 lanes), so that one
// user's hash cannot hold the verifier's few slots for seconds at every attempt anyone makes against that account.
const COST = { minMemory: 7168, minWork: 35_840, maxMemory: 131_072, maxPasses: 10, maxLanes: 8 } as const;

/** Why the costs of an argon2id hash (isArgon2idHash) are refused, or null when they are within COST. */
export function argon2idCostProblem(value: string): string | null {
  const [, m, t, p] = /\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(value)!.map(Number);
  // RFC 9106 section 3.1: p is 1 to 2^24-1; with p=0 no password would ever match, the user locked out unseen.
  if (p! < 1) return `Password hash has p=${p}: an argon2id hash has at least one lane (p=1 or more)`;
  if (m! < COST.minMemory || m! * t! < COST.minWork)
    return `Password hash is too cheap to keep (m=${m}, t=${t}): use at least m=19456,t=2 (OWASP's baseline, what this server makes), or a stronger one`;
  if (m! > COST.maxMemory || t! > COST.maxPasses || p! > COST.maxLanes)
    return `Password hash costs more than a sign-in may here (m=${m}, t=${t}, p=${p}; at most m=${COST.maxMemory}, t=${COST.maxPasses}, p=${COST.maxLanes})`;
  return null;
}

// argon2id of a random string nobody knows, verified when the user does not exist.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$8oMUBbGPp6pU8bDFTB9+Z1BSSlaKFTKRsI3mZIWKZ2Y';
