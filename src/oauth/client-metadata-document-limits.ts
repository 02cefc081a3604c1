// Any caller can name any URL as its client_id, so fetching Client ID Metadata Documents is work a stranger can
// ask this server to do. These bound it per instance: a refused document is not fetched again for a while.

/** A refused document's URL is answered as an unknown client for this long before it is fetched again. */
export const REFUSAL_CACHE_SECONDS = 30;
/** At most this many URLs are remembered as refused; past it the oldest are forgotten first. */
export const REFUSAL_CACHE_ENTRIES = 1000;

interface Refusal {
  reason: string;
  until: number;
}

/**
 * The URLs whose document was refused lately (fetch failure, private address, a document that breaks the
 * rules), each with why, for REFUSAL_CACHE_SECONDS; bounded in entries, forgetting the oldest first (a Map keeps
 * insertion order). The window is fixed on purpose: the refusing answer's own Cache-Control is not trusted to
 * shorten it, since a host answering `max-age=0` would otherwise be fetched on every request again.
 */
export class RefusalCache {
  private readonly refusals = new Map<string, Refusal>();

  constructor(
    private readonly now: () => number,
    private readonly seconds = REFUSAL_CACHE_SECONDS,
    private readonly maxEntries = REFUSAL_CACHE_ENTRIES,
  ) {}

  /** Why `url` was refused, if it was within the window. */
  recent(url: string): string | null {
    const refusal = this.refusals.get(url);
    if (!refusal) return null;
    if (refusal.until > this.now()) return refusal.reason;
    this.refusals.delete(url);
    return null;
  }

  remember(url: string, reason: string): void {
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
