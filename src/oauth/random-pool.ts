import { Buffer } from 'node:buffer';
import { randomBytes, randomFillSync } from 'node:crypto';

// Random bytes are drawn from the CSPRNG a block at a time and handed out in order, each byte once, as
// crypto.randomUUID (its entropy cache) and nanoid (the ids of node-oidc-provider) do. One randomBytes(32) per
// token cost token issue tens of µs of CPU on the benchmark machine, more than anything else on that path
// (bench:profile, issue 21); a block of 4 KiB costs about as much as one call and serves 128 tokens. The block
// lives in this process only: node forks nothing that would share it.
const BLOCK_BYTES = 4096;
const block = Buffer.allocUnsafeSlow(BLOCK_BYTES);
let used = BLOCK_BYTES;

/** `size` random bytes (at most a block; more come straight from randomBytes), base64url without padding. */
export function randomBase64url(size: number): string {
  if (size > BLOCK_BYTES) return randomBytes(size).toString('base64url');
  if (used + size > BLOCK_BYTES) {
    randomFillSync(block);
    used = 0;
  }
  const value = block.toString('base64url', used, used + size);
  used += size;
  return value;
}
