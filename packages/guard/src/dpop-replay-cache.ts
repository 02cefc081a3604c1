import { createHash } from 'node:crypto';

/**
 * The `jti`s of the proofs this process accepted (RFC 9449 section 11.1), each until its proof would be refused as
 * too old anyway. Keys are a hash of the proof key's thumbprint and the jti, so the memory per entry is fixed
 * whatever the client sends. Bounded: a Map iterates in insertion order, expired entries are dropped from its front,
 * and when it is still full the oldest entry is evicted (its proof could then be replayed until it expires:
 * size `maxEntries` for the proof rate times the window). Per process: another instance of the API does not know
 * what this one saw.
 */
export class DpopReplayCache {
  readonly #entries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(maxEntries: number, now: () => number) {
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Records the proof; false when it was already seen and has not expired (a replay). */
  remember(jkt: string, jti: string, expiresAtMs: number): boolean {
    const key = createHash('sha256').update(`${jkt}\n${jti}`, 'utf8').digest('base64url');
    const now = this.#now();
    const seen = this.#entries.get(key);
    if (seen !== undefined && seen > now) return false;
    this.#entries.delete(key);
    for (const [oldest, expiresAt] of this.#entries) {
      if (expiresAt > now && this.#entries.size < this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
    this.#entries.set(key, expiresAtMs);
    return true;
  }
}
