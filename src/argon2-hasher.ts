import { hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from './oauth/passwords.js';

// OWASP's argon2id baseline (19 MiB, 2 iterations): strong for human passwords, ~30 ms per check.
// @node-rs/argon2 ships prebuilt binaries for each platform as npm packages: nothing compiles at install.
// algorithm 2 is Argon2id (a const enum in the typings, which verbatimModuleSyntax cannot import).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const argon2Hasher: PasswordHasher = {
  hash: (password) => hash(password, OPTIONS),
  async verify(hashed, password) {
    try {
      return await verify(hashed, password);
    } catch {
      return false;
    }
  },
};
