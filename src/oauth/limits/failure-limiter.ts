// Counts failed authentication attempts per key (a client id with an address, a user name with an address, an
// address alone) and locks a key out once it has failed maxFailures times within the window (SPEC 5 rateLimit:
// failures only; successful calls are never limited here). Counts live in this process's memory: an attacker
// spread over several instances gets a few more tries, never unlimited.

export interface FailureLimits {
  enabled: boolean;
  maxFailures: number;
  windowSeconds: number;
  lockoutSeconds: number;
}

interface Attempts {
  windowStart: number;
  failures: number;
  /** Attempts reserved and not yet settled (an argon2 check in flight): they count as failures until they are not. */
  pending: number;
}

/** An attempt counted before its (slow) check ran: settle it once with the outcome. */
export interface Reservation {
  settle(failed: boolean, now: Date): void;
}

export type ReserveOutcome = { reservation: Reservation; retryAfter: 0 } | { reservation: null; retryAfter: number };

export interface FailureLimiterOptions {
  /** Bounds memory under a flood of distinct keys (e.g. many addresses). Keys with attempts in flight stay. */
  maxKeys?: number;
  /** Bounds the lockouts held at once; when full, an expired lockout goes first, then the one ending soonest. */
  maxLockouts?: number;
  /** Told each time a key becomes locked out (log lines and metrics), with the id of the request that locked it. */
  onLockout?: (key: string, seconds: number, requestId: string | undefined) => void;
}

// Attempts that may wait on one key for a place; more than that at once is a flood, refused.
const MAX_WAITING = 256;

export class FailureLimiter {
  readonly #attempts = new Map<string, Attempts>();
  /** Lockouts apart from the counts: a flood of new keys evicts counts, never a live lockout first. */
  readonly #lockedUntil = new Map<string, number>();
  /** Attempts waiting for a place, by the key that was full. */
  readonly #waiting = new Map<string, Array<() => void>>();
  readonly #maxKeys: number;
  readonly #maxLockouts: number;
  readonly #onLockout: FailureLimiterOptions['onLockout'];

  constructor(
    private readonly limits: FailureLimits,
    { maxKeys = 10_000, maxLockouts = 100_000, onLockout }: FailureLimiterOptions = {},
  ) {
    this.#maxKeys = maxKeys;
    this.#maxLockouts = maxLockouts;
    this.#onLockout = onLockout;
  }

  get enabled(): boolean {
    return this.limits.enabled;
  }

  /** True while no key at all is locked out: the hot path skips building keys. */
  get idle(): boolean {
    return this.#lockedUntil.size === 0;
  }

  /** Seconds until every given key may try again; 0 when none is locked out. */
  retryAfter(keys: readonly string[], now: Date): number {
    if (!this.limits.enabled || this.#lockedUntil.size === 0) return 0;
    const at = now.getTime();
    let until = 0;
    for (const key of keys) {
      const lockedUntil = this.#lockedUntil.get(key);
      if (lockedUntil === undefined) continue;
      if (lockedUntil <= at) this.#lockedUntil.delete(key);
      else until = Math.max(until, lockedUntil);
    }
    return until > at ? Math.ceil((until - at) / 1000) : 0;
  }

  /**
   * Counts one failure for each key; the failure that reaches maxFailures within the window starts a lockout.
   * Synchronous, so a check and its failure are recorded with no other request in between. `requestId`: the
   * failing request's, for the lockout's log line.
   */
  recordFailure(keys: readonly string[], now: Date, requestId?: string): void {
    if (!this.limits.enabled) return;
    const at = now.getTime();
    for (const key of keys) this.#fail(this.#current(key, at), key, at, requestId);
    this.#prune(at);
  }

  /**
   * For checks that take time (argon2): counts the attempt before it runs, so that many attempts sent at once
   * cannot all pass the limit and be counted only after their checks. While the failures and the attempts in
   * flight reach maxFailures, a new attempt waits for one of them to settle (it is never refused for its own
   * company: twelve correct logins at once all succeed); refused when a key is locked out, or when too many
   * attempts already wait on one key. `requestId`: the attempt's request, for the log line of a lockout it starts.
   */
  async reserve(keys: readonly string[], clock: () => Date, requestId?: string): Promise<ReserveOutcome> {
    if (!this.limits.enabled) return { reservation: { settle: () => undefined }, retryAfter: 0 };
    for (;;) {
      const now = clock();
      const locked = this.retryAfter(keys, now);
      if (locked > 0) return { reservation: null, retryAfter: locked };
      const at = now.getTime();
      const entries = keys.map((key) => this.#current(key, at));
      const full = keys.find((_key, index) => entries[index]!.failures + entries[index]!.pending >= this.limits.maxFailures);
      if (full === undefined) {
        for (const entry of entries) entry.pending += 1;
        return { reservation: this.#reservation(keys, requestId), retryAfter: 0 };
      }
      const waiting = this.#waiting.get(full) ?? [];
      // A pair with this many attempts queued is being flooded: the flood is told to come back later.
      if (waiting.length >= MAX_WAITING) return { reservation: null, retryAfter: 1 };
      await new Promise<void>((resolve) => this.#waiting.set(full, [...waiting, resolve]));
    }
  }

  #reservation(keys: readonly string[], requestId: string | undefined): Reservation {
    let settled = false;
    const settle = (failed: boolean, when: Date) => {
      if (settled) return;
      settled = true;
      const settledAt = when.getTime();
      for (const key of keys) {
        // Entries with attempts in flight are never pruned: this is the entry reserved above, its window renewed.
        const entry = this.#current(key, settledAt);
        entry.pending = Math.max(0, entry.pending - 1);
        if (failed) this.#fail(entry, key, settledAt, requestId);
        else if (entry.failures === 0 && entry.pending === 0) this.#attempts.delete(key);
        this.#wake(key);
      }
      this.#prune(settledAt);
    };
    return { settle };
  }

  /** The attempts waiting on this key look again (a place is free, or a lockout has started). */
  #wake(key: string): void {
    const waiting = this.#waiting.get(key);
    if (!waiting) return;
    this.#waiting.delete(key);
    for (const resolve of waiting) resolve();
  }

  /** Failures counted for this key in the current window (0 when none). */
  failures(key: string, now: Date): number {
    const attempts = this.#attempts.get(key);
    if (!attempts || now.getTime() - attempts.windowStart >= this.limits.windowSeconds * 1000) return 0;
    return attempts.failures;
  }

  /** A success forgets earlier failures of this key (not its lockout). */
  reset(key: string): void {
    const attempts = this.#attempts.get(key);
    if (attempts && attempts.pending === 0) this.#attempts.delete(key);
    else if (attempts) attempts.failures = 0;
  }

  /** The key's counts, with the window restarted if it has passed; re-inserted last (the map's order is activity). */
  #current(key: string, at: number): Attempts {
    const attempts = this.#attempts.get(key) ?? { windowStart: at, failures: 0, pending: 0 };
    if (at - attempts.windowStart >= this.limits.windowSeconds * 1000) Object.assign(attempts, { windowStart: at, failures: 0 });
    this.#attempts.delete(key);
    this.#attempts.set(key, attempts);
    return attempts;
  }

  #fail(attempts: Attempts, key: string, at: number, requestId: string | undefined): void {
    attempts.failures += 1;
    if (attempts.failures < this.limits.maxFailures) return;
    Object.assign(attempts, { failures: 0, windowStart: at });
    this.#lock(key, at, requestId);
  }

  #lock(key: string, at: number, requestId: string | undefined): void {
    this.#lockedUntil.delete(key);
    if (this.#lockedUntil.size >= this.#maxLockouts) this.#evictLockout(at);
    this.#lockedUntil.set(key, at + this.limits.lockoutSeconds * 1000);
    this.#onLockout?.(key, this.limits.lockoutSeconds, requestId);
  }

  #evictLockout(at: number): void {
    let soonest: string | null = null;
    let soonestUntil = Infinity;
    for (const [key, until] of this.#lockedUntil) {
      if (until <= at) this.#lockedUntil.delete(key);
      else if (until < soonestUntil) [soonest, soonestUntil] = [key, until];
    }
    if (this.#lockedUntil.size >= this.#maxLockouts && soonest !== null) this.#lockedUntil.delete(soonest);
  }

  #prune(at: number): void {
    if (this.#attempts.size <= this.#maxKeys) return;
    const window = this.limits.windowSeconds * 1000;
    for (const [key, attempts] of this.#attempts) {
      if (attempts.pending === 0 && at - attempts.windowStart >= window) this.#attempts.delete(key);
    }
    // Still full: the least recently active counts go, oldest first (a lockout is kept apart and stays).
    for (const [key, attempts] of this.#attempts) {
      if (this.#attempts.size <= this.#maxKeys) break;
      if (attempts.pending === 0) this.#attempts.delete(key);
    }
  }
}
