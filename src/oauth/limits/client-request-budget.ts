// SPEC 5 rateLimit.perClientPerMinute: an optional budget of requests per authenticated client and minute, at every
// endpoint where a client authenticates (token, revoke, introspect, PAR, device authorization). Counted once the
// client is known, after its credentials were checked: a request naming a client with a wrong secret is the failure
// limits' (per pair), so nobody who merely knows a client id can spend its budget and refuse it service. A public
// client has no credentials: whoever names it spends its budget, as before. In this process's memory, one fixed
// window a minute per client, as @fastify/rate-limit counts the per-address budgets.

const WINDOW_MS = 60_000;

// More clients than this in one minute: the windows that ended are dropped first, then the oldest started.
const MAX_CLIENTS = 100_000;

interface Window {
  start: number;
  requests: number;
}

export class ClientRequestBudget {
  readonly #windows = new Map<string, Window>();

  constructor(private readonly perMinute: number) {}

  /** Counts one request of `clientId`; the seconds it must wait when over its budget (0: go ahead). */
  take(clientId: string, now: Date): number {
    const at = now.getTime();
    let window = this.#windows.get(clientId);
    if (window === undefined || at - window.start >= WINDOW_MS) {
      this.#windows.delete(clientId);
      if (this.#windows.size >= MAX_CLIENTS) this.#dropEnded(at);
      window = { start: at, requests: 0 };
      // Map order is insertion order: the oldest window first, for #dropEnded.
      this.#windows.set(clientId, window);
    }
    window.requests += 1;
    return window.requests > this.perMinute ? Math.max(1, Math.ceil((window.start + WINDOW_MS - at) / 1000)) : 0;
  }

  #dropEnded(at: number): void {
    for (const [clientId, window] of this.#windows) {
      if (at - window.start < WINDOW_MS && this.#windows.size < MAX_CLIENTS) return;
      this.#windows.delete(clientId);
    }
  }
}
