// Any caller can name any URL as its client_id, so fetching Client ID Metadata Documents is work a stranger can
// ask this server to do. These bound it per instance: a refused document is not fetched again for a while, only
// so many fetches run at once, in all and to one host, and each address makes only so many first fetches a minute.

/** A refused document's URL is answered as an unknown client for this long before it is fetched again. */
export const REFUSAL_CACHE_SECONDS = 30;
/** At most this many URLs are remembered as refused; past it the oldest are forgotten first. */
export const REFUSAL_CACHE_ENTRIES = 1000;
/** At most this many addresses have their first fetches counted at once; past it the oldest windows go first. */
export const FIRST_FETCH_ADDRESSES = 10_000;
/** Document fetches in flight at once on one instance, in all and to one host name. */
export const MAX_FETCHES = 16;
export const MAX_FETCHES_PER_HOST = 4;

interface Refusal<Reason> {
  reason: Reason;
  until: number;
}

/**
 * The URLs whose document was refused lately (fetch failure, private address, a document that breaks the
 * rules), each with why, for REFUSAL_CACHE_SECONDS; bounded in entries, forgetting the oldest first (a Map keeps
 * insertion order). The window is fixed on purpose: the refusing answer's own Cache-Control is not trusted to
 * shorten it, since a host answering `max-age=0` would otherwise be fetched on every request again.
 */
export class RefusalCache<Reason = string> {
  private readonly refusals = new Map<string, Refusal<Reason>>();

  constructor(
    private readonly now: () => number,
    private readonly seconds = REFUSAL_CACHE_SECONDS,
    private readonly maxEntries = REFUSAL_CACHE_ENTRIES,
  ) {}

  /** Why `url` was refused, if it was within the window. */
  recent(url: string): Reason | null {
    const refusal = this.refusals.get(url);
    if (!refusal) return null;
    if (refusal.until > this.now()) return refusal.reason;
    this.refusals.delete(url);
    return null;
  }

  remember(url: string, reason: Reason): void {
    this.refusals.delete(url);
    if (this.refusals.size >= this.maxEntries) {
      const now = this.now();
      for (const [key, refusal] of this.refusals) if (refusal.until <= now) this.refusals.delete(key);
      // Still full: the oldest go (insertion order), so the map never grows past maxEntries.
      for (const key of this.refusals.keys()) {
        if (this.refusals.size < this.maxEntries) break;
        this.refusals.delete(key);
      }
    }
    this.refusals.set(url, { reason, until: this.now() + this.seconds * 1000 });
  }

  forget(url: string): void {
    this.refusals.delete(url);
  }

  get size(): number {
    return this.refusals.size;
  }
}

/**
 * Counts the fetches in flight so a flood of distinct URLs (on one host, or everywhere) cannot tie up sockets and
 * timeoutMs-long waits: take() gives a release function, or the reason there is no free slot now.
 */
export class FetchSlots {
  private total = 0;
  private readonly byHost = new Map<string, number>();

  constructor(
    private readonly max = MAX_FETCHES,
    private readonly maxPerHost = MAX_FETCHES_PER_HOST,
  ) {}

  take(host: string): { release: () => void } | { busy: string } {
    const key = host.toLowerCase();
    const onHost = this.byHost.get(key) ?? 0;
    if (onHost >= this.maxPerHost) return { busy: `${this.maxPerHost} document fetches to ${key} are already in flight` };
    if (this.total >= this.max) return { busy: `${this.max} document fetches are already in flight` };
    this.total += 1;
    this.byHost.set(key, onHost + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        const left = (this.byHost.get(key) ?? 1) - 1;
        if (left === 0) this.byHost.delete(key);
        else this.byHost.set(key, left);
      },
    };
  }

  get inFlight(): number {
    return this.total;
  }
}

/**
 * Issue 29 item 4: per address, at most `max` first fetches (a client_id URL with no stored client) in a minute's
 * window on this instance (0: no limit). Bounded in addresses like RefusalCache, forgetting the oldest first.
 */
export class FirstFetchAllowance {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly max: number,
    private readonly now: () => number,
    private readonly maxEntries = FIRST_FETCH_ADDRESSES,
  ) {}

  /** Spends one first fetch of `address`; false, spending nothing, when its window's allowance is spent. */
  take(address: string): boolean {
    if (this.max === 0) return true;
    const now = this.now();
    let window = this.windows.get(address);
    if (!window || window.start + 60_000 <= now) {
      this.windows.delete(address);
      if (this.windows.size >= this.maxEntries) this.forgetOldest(now);
      window = { start: now, count: 0 };
      this.windows.set(address, window);
    }
    if (window.count >= this.max) return false;
    window.count += 1;
    return true;
  }

  private forgetOldest(now: number): void {
    for (const [key, window] of this.windows) if (window.start + 60_000 <= now) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxEntries) break;
      this.windows.delete(key);
    }
  }

  get size(): number {
    return this.windows.size;
  }
}
