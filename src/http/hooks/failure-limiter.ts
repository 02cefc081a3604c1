// Counts failed authentication attempts per key (an IP address, a user name, a client id) and locks a key out once it
// has failed too often (SPEC 5 rateLimit: failures only; successful calls are never limited here). Counts live
// in this process's memory: an attacker spread over several instances gets a few more tries, never unlimited.

export interface FailureLimits {
  enabled: boolean;
  maxFailures: number;
  windowSeconds: number;
  lockoutSeconds: number;
}

interface Attempts {
  windowStart: number;
  failures: number;
  lockedUntil: number;
}

export class FailureLimiter {
  readonly #attempts = new Map<string, Attempts>();

  constructor(
    private readonly limits: FailureLimits,
    /** Bounds memory under a flood of distinct keys (e.g. many IP addresses). */
    private readonly maxKeys = 10_000,
  ) {}

  /** Seconds until every given key may try again; 0 when none is locked out. */
  retryAfter(keys: readonly string[], now: Date): number {
    if (!this.limits.enabled) return 0;
    const until = Math.max(0, ...keys.map((key) => this.#attempts.get(key)?.lockedUntil ?? 0));
    return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0;
  }

  /** Counts one failure for each key; the failure that reaches maxFailures within the window starts a lockout. */
  recordFailure(keys: readonly string[], now: Date): void {
    if (!this.limits.enabled) return;
    const at = now.getTime();
    for (const key of keys) {
      const attempts = this.#attempts.get(key) ?? { windowStart: at, failures: 0, lockedUntil: 0 };
      if (at - attempts.windowStart >= this.limits.windowSeconds * 1000) Object.assign(attempts, { windowStart: at, failures: 0 });
      attempts.failures += 1;
      if (attempts.failures >= this.limits.maxFailures) {
        Object.assign(attempts, { lockedUntil: at + this.limits.lockoutSeconds * 1000, failures: 0, windowStart: at });
      }
      // Re-inserted last, so the map's order is the order of last activity (oldest first when pruning).
      this.#attempts.delete(key);
      this.#attempts.set(key, attempts);
    }
    this.#prune(at);
  }

  /** A success forgets earlier failures of this key. */
  reset(key: string): void {
    this.#attempts.delete(key);
  }

  #prune(at: number): void {
    if (this.#attempts.size <= this.maxKeys) return;
    for (const [key, attempts] of this.#attempts) {
      if (attempts.lockedUntil <= at && at - attempts.windowStart >= this.limits.windowSeconds * 1000) this.#attempts.delete(key);
    }
    for (const key of this.#attempts.keys()) {
      if (this.#attempts.size <= this.maxKeys) break;
      this.#attempts.delete(key);
    }
  }
}
