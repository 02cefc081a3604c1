import { availableParallelism } from 'node:os';
import type * as Argon2 from '@node-rs/argon2';
import type { PasswordHasher } from '../oauth/users/passwords.js';

// The domain's PasswordHasher (oauth/users/passwords.ts) on a native module, so it lives in storage, the layer that
// implements the domain's interfaces on infrastructure; app.ts and the CLI hand it to the domain in its deps.

// OWASP's argon2id baseline (19 MiB, 2 iterations): strong for human passwords, ~30 ms per check.
// @node-rs/argon2 ships prebuilt binaries for each platform as npm packages: nothing compiles at install.
// algorithm 2 is Argon2id (a const enum in the typings, which verbatimModuleSyntax cannot import).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

// At most one check per core runs at a time; the rest wait their turn in order. Hundreds of guesses sent at
// once then queue instead of all competing for the CPU (and 19 MiB each), and the failure limits, which count
// attempts before they run, keep any one address's share of the queue small.
const MAX_IN_FLIGHT = Math.max(2, availableParallelism());
let inFlight = 0;
const waiting: Array<() => void> = [];

async function bounded<T>(work: () => Promise<T>): Promise<T> {
  if (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
  else inFlight += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    // The slot passes straight to the next in line, so inFlight never drops below the queue's need.
    if (next) next();
    else inFlight -= 1;
  }
}

// The native module is loaded at the first hash or check: most CLI commands never need it (issue 30).
let native: Promise<typeof Argon2> | undefined;
const argon2 = () => (native ??= import('@node-rs/argon2'));

export const argon2Hasher: PasswordHasher = {
  hash: (password) => bounded(async () => (await argon2()).hash(password, OPTIONS)),
  async verify(hashed, password) {
    // Outside the try: a native module that fails to load is an error, never a wrong password.
    const { verify } = await argon2();
    try {
      return await bounded(() => verify(hashed, password));
    } catch {
      return false;
    }
  },
};
