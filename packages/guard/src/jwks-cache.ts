import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { GuardUnavailableError } from './guard-error.js';

export interface JwksCacheOptions {
  /** The JWKS URL; may discover it (RFC 8414) on first use. */
  url: () => Promise<string>;
  /** A new fetch starts at most once per this many seconds (after a success or a failure). */
  cooldownSeconds: number;
  /** Keys older than this are refetched before they verify again (kept when the refetch fails). */
  maxAgeSeconds: number;
  timeoutMs: number;
  /** The clock in milliseconds. */
  now: () => number;
  /** Told when a refetch of keys past their max age fails (the cached keys stay in use). */
  onRefreshError: (error: unknown) => void;
}

type KeyResolver = ReturnType<typeof createLocalJWKSet>;

/**
 * The authorization server's public keys, for jose's jwtVerify. Not jose's createRemoteJWKSet: once its copy is
 * older than cacheMaxAge it awaits a refetch and fails every verification while the JWKS is unreachable, and
 * with an infinite cacheMaxAge it would never drop a retired key. Here:
 * - the first use fetches the keys (a failure is a 503: nothing can be verified yet);
 * - keys older than maxAgeSeconds are refetched before they verify again, and the refetched set replaces them, so a
 *   key the server retired (`keys retire`, gone from its JWKS) verifies nothing past maxAgeSeconds after the last
 *   fetch (issue 29 item 12). When that refetch fails the cached keys keep verifying (a JWKS outage never turns away
 *   a token its cached key verifies), and the next try waits cooldownSeconds;
 * - a `kid` the cached set does not hold (a key rotated in, or one retired and dropped) refetches at once, at most
 *   once per cooldownSeconds, so tokens with made-up kids cannot make the guard hammer the JWKS; a refetch also
 *   drops the keys the JWKS no longer has;
 * - concurrent requests share one fetch.
 */
export class JwksCache {
  readonly #options: JwksCacheOptions;
  #keys: { resolve: KeyResolver; fetchedAt: number } | null = null;
  #lastAttempt = Number.NEGATIVE_INFINITY;
  #lastError: unknown = null;
  #inFlight: Promise<void> | null = null;

  constructor(options: JwksCacheOptions) {
    this.#options = options;
  }

  /** The key resolver to hand to jwtVerify. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    let keys = this.#keys ?? (await this.#firstKeys());
    if (this.#options.now() - keys.fetchedAt >= this.#options.maxAgeSeconds * 1000 && !this.#coolingDown()) {
      keys = await this.#refreshedOr(keys);
    }
    try {
      return await keys.resolve(header, token);
    } catch (error) {
      // An unknown kid: a key rotated in since the last fetch. Requests arriving while a fetch runs wait for it
      // (a burst of tokens with the new kid is not refused). A failed refetch is a 503, not a 401: the token may be
      // valid, the guard cannot tell.
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      if (this.#inFlight === null && this.#coolingDown()) {
        // Within the cooldown the set is not fetched again: after a fetch that worked the kid is made up (401), after
        // one that failed it may be a key rotated in during the outage (503).
        throw this.#lastError === null ? error : this.#unavailable(this.#lastError);
      }
      await this.#refresh();
      return (this.#keys ?? keys).resolve(header, token);
    }
  };

  async #firstKeys(): Promise<{ resolve: KeyResolver; fetchedAt: number }> {
    if (this.#coolingDown() && this.#inFlight === null) throw this.#unavailable(this.#lastError);
    await this.#refresh();
    if (!this.#keys) throw this.#unavailable(this.#lastError);
    return this.#keys;
  }

  /** Keys past their max age, refetched; the cached ones when the refetch fails (reported once, by its starter). */
  async #refreshedOr(cached: { resolve: KeyResolver; fetchedAt: number }): Promise<{ resolve: KeyResolver; fetchedAt: number }> {
    const starts = this.#inFlight === null;
    try {
      await this.#refresh();
    } catch (error) {
      if (starts) this.#options.onRefreshError(error);
    }
    return this.#keys ?? cached;
  }

  #coolingDown(): boolean {
    return this.#options.now() - this.#lastAttempt < this.#options.cooldownSeconds * 1000;
  }

  #refresh(): Promise<void> {
    this.#inFlight ??= this.#fetch().finally(() => (this.#inFlight = null));
    return this.#inFlight;
  }

  async #fetch(): Promise<void> {
    this.#lastAttempt = this.#options.now();
    try {
      const jwks = await this.#download();
      this.#keys = { resolve: createLocalJWKSet(jwks), fetchedAt: this.#options.now() };
      this.#lastError = null;
    } catch (error) {
      this.#lastError = error;
      throw this.#unavailable(error);
    }
  }

  async #download(): Promise<JSONWebKeySet> {
    const url = await this.#options.url();
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.#options.timeoutMs) });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    const body: unknown = await response.json();
    const keys = (body as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) throw new Error(`${url} answered 200 without a JSON Web Key Set`);
    return body as JSONWebKeySet;
  }

  #unavailable(error: unknown): GuardUnavailableError {
    if (error instanceof GuardUnavailableError) return error;
    // fetch says only "fetch failed"; the reason (ECONNREFUSED, a DNS failure, a timeout) is its cause.
    const cause =
      error instanceof Error && error.cause instanceof Error
        ? `: ${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message}`
        : '';
    const detail = error instanceof Error ? `${error.message}${cause}` : String(error);
    return new GuardUnavailableError(`the authorization server's keys could not be fetched: ${detail}`, { cause: error });
  }
}
