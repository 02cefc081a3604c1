import argon2 from 'argon2';
import type { PasswordHasher } from './oauth/passwords.js';

// OWASP's argon2id baseline (19 MiB, 2 iterations): strong for human passwords, ~30 ms per check.
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const argon2Hasher: PasswordHasher = {
  hash: (password) => argon2.hash(password, OPTIONS),
  async verify(hash, password) {
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  },
};
