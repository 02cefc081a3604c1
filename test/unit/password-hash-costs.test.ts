import { describe, expect, it } from 'vitest';
import { passwordHashProblems } from '../../src/oauth/users/users.js';

// A password declared as its argon2id hash (apply): its costs are bounded both ways (a data
// lifecycle audit: 8 KiB and one pass was kept for ever, and 1 GB with 999 passes would have cost every sign-in).
const SALT_AND_HASH = 'c29tZXNhbHRzb21lc2FsdA$8oMUBbGPp6pU8bDFTB9+Z1BSSlaKFTKRsI3mZIWKZ2Y';
const hash = (costs: string) => `$argon2id$v=19$${costs}$${SALT_AND_HASH}`;

describe('the costs of a declared argon2id hash', () => {
  it.each(['m=19456,t=2,p=1', 'm=47104,t=1,p=1', 'm=7168,t=5,p=1', 'm=65536,t=3,p=4', 'm=131072,t=10,p=8'])('takes %s', (costs) => {
    expect(passwordHashProblems(hash(costs))).toEqual({});
  });

  it.each([
    ['m=8,t=1,p=1', 'Password hash is too cheap to keep (m=8, t=1): use at least m=19456,t=2'],
    ['m=19456,t=1,p=1', 'Password hash is too cheap to keep (m=19456, t=1)'],
    ['m=999999,t=999,p=1', 'Password hash costs more than a sign-in may here (m=999999, t=999, p=1; at most m=131072, t=10, p=8)'],
    ['m=19456,t=2,p=16', 'Password hash costs more than a sign-in may here (m=19456, t=2, p=16;'],
    // RFC 9106 section 3.1: no password would ever match it, the user locked out without a word.
    ['m=19456,t=2,p=0', 'Password hash has p=0: an argon2id hash has at least one lane (p=1 or more)'],
  ])('refuses %s', (costs, problem) => {
    const problems = passwordHashProblems(hash(costs));
    expect(Object.keys(problems)).toEqual(['password_hash']);
    expect(Object.values(problems).flat().join(' ')).toContain(problem);
  });
});
