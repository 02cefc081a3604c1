import { createHash } from 'node:crypto';
import type { GuardToken } from './types.js';

export interface IntrospectionCacheOptions {
  /** Lifetime of an active answer in seconds, capped by the token's expiry. */
  ttlSeconds: number;
  /** Lifetime of an inactive answer (or unknown token) in seconds. */
  negativeTtlSeconds: number;
  /** Most entries; the oldest is evicted first. 0 disables the cache. */
  maxEntries: number;
  /** The clock in milliseconds. */
  now: () => number;
}

interface Entry {
  value: GuardToken | null;
  expiresAtMs: number;
}

/**
 * The cache key of a token: its SHA-256, so the cache never holds usable bearer tokens (a heap dump or a debug
 * print of the cache reveals nothing a client could replay).
 */
export function cacheKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Introspection answers by token hash. An active answer lives `ttlSeconds` but never past the token's `exp`
 * (so a cached answer can never accept an expired token); an inactive one lives `negativeTtlSeconds`, which
 * keeps a flood of bad tokens from reaching the authorization server while a newly issued token is not refused
 * for long. The size is bounded: a Map iterates in insertion order, so its first key is the oldest entry.
 */
export class IntrospectionCache {
  readonly #entries = new Map<string, Entry>();
  readonly #options: IntrospectionCacheOptions;

  constructor(options: IntrospectionCacheOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached answer (null = inactive or unknown), or undefined when there is none that is still fresh. */
  get(key: string): { value: GuardToken | null } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#options.now() >= entry.expiresAtMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return { value: entry.value };
  }

  set(key: string, value: GuardToken | null): void {
    this.#entries.delete(key);
    const now = this.#options.now();
    const expiresAtMs = this.#freshUntil(value, now);
    if (expiresAtMs <= now || this.#options.maxEntries <= 0) return;
    while (this.#entries.size >= this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAtMs });
  }

  clear(): void {
    this.#entries.clear();
  }

  #freshUntil(value: GuardToken | null, now: number): number {
    if (value === null || !value.active) return now + this.#options.negativeTtlSeconds * 1000;
    const byTtl = now + this.#options.ttlSeconds * 1000;
    return value.expiresAt === null ? byTtl : Math.min(byTtl, value.expiresAt * 1000);
  }
}
