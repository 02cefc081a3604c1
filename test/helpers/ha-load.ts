// The mixed load of the HA fault test (issue 20): one loop per service instance, each iteration issuing a token,
// introspecting a kept one, rotating a refresh chain on the next instance over and revoking the previous
// iteration's token on another one, with every request and answer recorded.

export type Kind = 'issue' | 'introspect' | 'refresh' | 'revoke' | 'readyz';

export interface Exchange {
  instance: number;
  kind: Kind;
  /** ms since the fault (negative: before it). */
  startMs: number;
  endMs: number;
  /** HTTP status, or 0 when no answer came (connection error or the ANSWER_TIMEOUT_MS timeout). */
  status: number;
  retryAfter: string | null;
}

/**
 * Longer than the worst a request may take by design: the service's retry budget (the failover test sets 20 s) plus
 * PgBouncer's query_wait_timeout (10 s) for the last attempt it starts.
 */
export const ANSWER_TIMEOUT_MS = 35_000;

export interface LoadTarget {
  /** One base URL per instance. */
  urls: string[];
  authorization: string;
  /** A token issued before the load and never revoked: introspected on every iteration. */
  kept: string;
  /** The current refresh token of each chain (one per instance loop), moved on by every 200. */
  chains: string[];
}

export interface LoadRecord {
  exchanges: Exchange[];
  /** Access tokens of client_credentials issues answered 200 and not revoked since. */
  active: Set<string>;
  /**
   * The access token answered with each chain's current refresh token (a rotation retires the pair's row, so only
   * the last one of each chain stays active; none when the chain's last attempt was not answered 200).
   */
  chainTokens: string[];
  /** Tokens whose revocation was answered 200. */
  revoked: string[];
  /** Refresh tokens whose rotation was answered 200: each must be accepted once only. */
  rotated: string[];
  /** Refreshes refused with a 4xx (a rotation committed whose answer was lost would show here): "instance: error". */
  refusedRefreshes: string[];
  /** ms from the fault's start to its return (a switchover returns once Patroni reports the new leader). */
  faultMs: number;
  /** When the fault started (Date.now()), to find the services' log entries of the run. */
  faultAt: number;
}

type Answer = { status: number; json: Record<string, unknown> };

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const READYZ_EVERY_MS = 500;

/**
 * Runs the load from `leadMs` before `fault` starts until the fault has returned and `seconds` have passed since
 * it began, or 120 s, or `maxRequests` requests, whichever is first.
 */
export async function loadThrough(
  target: LoadTarget,
  fault: () => Promise<void>,
  options: { seconds: number; leadMs?: number; maxRequests?: number },
): Promise<LoadRecord> {
  const { seconds, leadMs = 3_000, maxRequests = 6_000 } = options;
  const record: LoadRecord = {
    exchanges: [],
    active: new Set(),
    chainTokens: [],
    revoked: [],
    rotated: [],
    refusedRefreshes: [],
    faultMs: NaN,
    faultAt: NaN,
  };
  const chainTokens = target.chains.map((): string | null => null);
  const loadStart = Date.now();
  let faultAt = loadStart + leadMs;
  let faultDone = false;
  const since = () => Date.now() - faultAt;
  const stop = () => record.exchanges.length >= maxRequests || since() > 120_000 || (faultDone && since() >= seconds * 1000);

  async function send(instance: number, kind: Kind, body?: Record<string, string>): Promise<Answer> {
    const startMs = since();
    let status = 0;
    let retryAfter: string | null = null;
    let json: Record<string, unknown> = {};
    try {
      const url = `${target.urls[instance]}${kind === 'readyz' ? '/readyz' : kind === 'issue' || kind === 'refresh' ? '/oauth/token' : `/oauth/${kind}`}`;
      const response = await fetch(url, {
        method: body ? 'POST' : 'GET',
        headers: body ? { ...FORM, authorization: target.authorization } : {},
        body: body ? new URLSearchParams(body) : undefined,
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    } catch {
      status = 0;
    }
    record.exchanges.push({ instance, kind, startMs, endMs: since(), status, retryAfter });
    return { status, json };
  }

  async function loop(k: number) {
    const n = target.urls.length;
    let previous: string | null = null;
    for (let i = 0; !stop(); i += 1) {
      const presented = target.chains[k]!;
      const toRevoke: string | null = i % 2 === 1 ? previous : null;
      const [issued, , refreshed, revoked]: Array<Answer | null> = await Promise.all([
        send(k, 'issue', { grant_type: 'client_credentials' }),
        send(k, 'introspect', { token: target.kept }),
        presented ? send((k + i) % n, 'refresh', { grant_type: 'refresh_token', refresh_token: presented }) : null,
        toRevoke ? send((k + 2) % n, 'revoke', { token: toRevoke }) : null,
      ]);
      if (issued?.status === 200) record.active.add(issued.json.access_token as string);
      if (refreshed?.status === 200) {
        record.rotated.push(presented);
        target.chains[k] = refreshed.json.refresh_token as string;
        chainTokens[k] = refreshed.json.access_token as string;
      } else if (refreshed) {
        // Not answered 200: the rotation may have been committed (retiring the pair) with its answer lost.
        chainTokens[k] = null;
      }
      if (refreshed && refreshed.status !== 200 && refreshed.status > 0 && refreshed.status < 500) {
        // The chain is spent (RFC 6749 section 10.4: a refused refresh may revoke it): stop using it.
        record.refusedRefreshes.push(`svc${((k + i) % n) + 1}: ${refreshed.status} ${String(refreshed.json.error)}`);
        target.chains[k] = '';
      }
      if (toRevoke && revoked) {
        // A revocation not answered 200 may or may not have been committed: that token is checked neither way.
        record.active.delete(toRevoke);
        if (revoked.status === 200) record.revoked.push(toRevoke);
      }
      previous = issued?.status === 200 ? (issued.json.access_token as string) : null;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // /readyz on its own beat, so a held or slow iteration does not leave the outage unsampled.
  async function pollReadiness(k: number) {
    while (!stop()) {
      await send(k, 'readyz');
      await new Promise((resolve) => setTimeout(resolve, READYZ_EVERY_MS));
    }
  }

  const loops = target.urls.flatMap((_, k) => [loop(k), pollReadiness(k)]);
  await new Promise((resolve) => setTimeout(resolve, leadMs));
  faultAt = Date.now();
  record.faultAt = faultAt;
  await fault();
  record.faultMs = since();
  faultDone = true;
  await Promise.all(loops);
  record.chainTokens = chainTokens.filter((token) => token !== null);
  return record;
}

export interface LoadFigures {
  requests: number;
  /** "503 retry-after=5" (or "no answer") -> count, readyz apart. */
  failures: Record<string, number>;
  /** From the fault to the end of the first successful write after the last failed one (or after the slowest). */
  firstWriteMs: number;
  /** From the fault to the end of the first whole second after firstWriteMs with at least 80% of the successes per second before the fault. */
  fullThroughputMs: number;
  baselinePerSecond: number;
  slowestMs: number;
  /** The slowest introspection: client authentication and the token both read on the replica (or the primary). */
  slowestIntrospectionMs: number;
  /** Introspections not answered 200. */
  introspectionFailures: number;
  /** Per instance: whether /readyz (polled every 500 ms) answered 503 after the fault. */
  readyz503: boolean[];
  /** The slowest /readyz answer: the check must say within a bounded time whether a writable primary answers. */
  readyzSlowestMs: number;
  /** /readyz answers other than 200 and 503 (none expected). */
  readyzOther: number;
}

export function figures(record: LoadRecord, instances: number): LoadFigures {
  const requests = record.exchanges.filter((e) => e.kind !== 'readyz');
  const failures: Record<string, number> = {};
  for (const e of requests) {
    if (e.status === 200) continue;
    const key = e.status === 0 ? 'no answer' : `${e.status} retry-after=${e.retryAfter ?? 'none'}`;
    failures[key] = (failures[key] ?? 0) + 1;
  }
  const writes = requests.filter((e) => e.kind !== 'introspect' && e.endMs > 0).sort((a, b) => a.endMs - b.endMs);
  const lastFailure = writes.findLastIndex((e) => e.status !== 200);
  const slowest = writes.reduce((worst, e, i) => (e.endMs - e.startMs > writes[worst]!.endMs - writes[worst]!.startMs ? i : worst), 0);
  const firstWriteMs = writes.slice(lastFailure >= 0 ? lastFailure + 1 : slowest).find((e) => e.status === 200)?.endMs ?? NaN;
  const before = requests.filter((e) => e.status === 200 && e.endMs < 0);
  const leadSeconds = Math.max(1, -Math.min(0, ...requests.map((e) => e.startMs)) / 1000);
  const baselinePerSecond = before.length / leadSeconds;
  const buckets = new Map<number, number>();
  for (const e of requests)
    if (e.status === 200 && e.endMs >= 0) buckets.set(Math.floor(e.endMs / 1000), (buckets.get(Math.floor(e.endMs / 1000)) ?? 0) + 1);
  let fullThroughputMs = NaN;
  const lastBucket = Math.max(0, ...buckets.keys());
  for (let second = Math.ceil(firstWriteMs / 1000); second < lastBucket; second += 1) {
    if ((buckets.get(second) ?? 0) >= 0.8 * baselinePerSecond) {
      fullThroughputMs = (second + 1) * 1000;
      break;
    }
  }
  const readiness = record.exchanges.filter((e) => e.kind === 'readyz');
  const introspections = requests.filter((e) => e.kind === 'introspect');
  const readyz503 = Array.from({ length: instances }, (_, k) =>
    readiness.some((e) => e.instance === k && e.startMs >= 0 && e.status === 503),
  );
  return {
    requests: requests.length,
    failures,
    firstWriteMs,
    fullThroughputMs,
    baselinePerSecond: Math.round(baselinePerSecond),
    slowestMs: Math.max(...requests.map((e) => e.endMs - e.startMs)),
    slowestIntrospectionMs: Math.max(0, ...introspections.map((e) => e.endMs - e.startMs)),
    introspectionFailures: introspections.filter((e) => e.status !== 200).length,
    readyz503,
    readyzSlowestMs: Math.max(0, ...readiness.map((e) => e.endMs - e.startMs)),
    readyzOther: readiness.filter((e) => e.status !== 200 && e.status !== 503).length,
  };
}
