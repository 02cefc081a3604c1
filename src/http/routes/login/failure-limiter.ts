// Failed logins back off and then lock out, per IP and per username (SPEC 3.6 and 5 rateLimit). Counts live in
// this process's memory: an attacker spread over several instances gets a few more tries, never unlimited.

export interface FailureLimits {
  enabled: boolean;
  maxFailures: number;
  windowSeconds: number;
  lockoutSeconds: number;
}

interface Entry {
  windowStart: number;
  failures: number;
  lockedUntil: number;
}

export class FailureLimiter {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly limits: FailureLimits,
    /** Bounds memory under a flood of distinct IPs or usernames. */
    private readonly maxKeys = 10_000,
  ) {}

  /** Seconds until every given key may try again; 0 when none is locked out. */
  retryAfter(keys: readonly string[], now: Date): number {
    if (!this.limits.enabled) return 0;
    const until = Math.max(0, ...keys.map((key) => this.#entries.get(key)?.lockedUntil ?? 0));
    return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0;
  }

  recordFailure(keys: readonly string[], now: Date): void {
    if (!this.limits.enabled) return;
    const at = now.getTime();
    for (const key of keys) {
      const entry = this.#entries.get(key) ?? { windowStart: at, failures: 0, lockedUntil: 0 };
      if (at - entry.windowStart >= this.limits.windowSeconds * 1000) Object.assign(entry, { windowStart: at, failures: 0 });
      entry.failures += 1;
      if (entry.failures >= this.limits.maxFailures) {
        Object.assign(entry, { lockedUntil: at + this.limits.lockoutSeconds * 1000, failures: 0, windowStart: at });
      }
      this.#entries.delete(key); // re-inserted last: the map's order is the order of last activity
      this.#entries.set(key, entry);
    }
    this.#prune(at);
  }

  reset(key: string): void {
    this.#entries.delete(key);
  }

  #prune(at: number): void {
    if (this.#entries.size <= this.maxKeys) return;
    for (const [key, entry] of this.#entries) {
      if (entry.lockedUntil <= at && at - entry.windowStart >= this.limits.windowSeconds * 1000) this.#entries.delete(key);
    }
    // Still too many: forget the least recently active.
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.maxKeys) break;
      this.#entries.delete(key);
    }
  }
}
