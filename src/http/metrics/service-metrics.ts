import { configSchema } from '../../config/schema.js';
import type { CapObserver } from '../../oauth/clients/registration/registration-cap.js';
import type { LockoutKind } from '../../oauth/limits/attempt-limits.js';
import { logoutDeliveryMetrics, type LogoutDeliveryOutcome } from './logout-delivery-metrics.js';
import { registrationCapMetrics } from './registration-cap-metrics.js';
import { MetricsRegistry, type Counter, type CounterSeries, type Histogram, type HistogramSeries } from './registry.js';

/** The database pool as storage reports it (storage/database.ts poolStats); in use = total - idle. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export type IntrospectionResult = 'active' | 'inactive' | 'refused';

/** What routes report beyond request counts (SPEC 3.7); reached through `app.metrics`. */
export interface ServiceMetrics {
  /** One call per token response, with the grant type that issued it (implicit included). */
  tokensIssued(grantType: string): void;
  /** One call per introspection request: an active or inactive answer, or refused (401 to the requester). */
  introspection(result: IntrospectionResult): void;
  /** The read replica failed and reads moved to the primary (counted only when there is a replica). */
  readReplicaFallback(): void;
  /** A failed client authentication at token, revoke or introspect; null for a client id that names no application. */
  clientAuthenticationFailed(clientId: string | null): void;
  /** A wrong user or admin password (login, password grant, admin). */
  passwordCheckFailed(kind: string): void;
  /** A pair or address locked out after failures, by kind (client, unknown_clients, user, user_names, admin, user_codes). */
  lockout(kind: string): void;
  /** A token revoked at /oauth/revoke (a refresh token's whole family counts once). */
  revocation(): void;
  /** A count of live self-registered clients against their cap (registration-cap-metrics.ts). */
  registrationCap: CapObserver;
  /** One call per back-channel logout delivery attempt, by how it ended (logout-delivery-metrics.ts). */
  logoutDelivery(outcome: LogoutDeliveryOutcome): void;
}

/** Seconds; fine below 10 ms, where the hot endpoints should answer (SPEC 9: p99 under 10 ms). */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Every grant the product supports (the values of config grantFlows): the token endpoint's, and implicit (authorize). */
const KNOWN_GRANT_TYPES: readonly string[] = configSchema.properties.grantFlows.items.enum;
const INTROSPECTION_RESULTS: IntrospectionResult[] = ['active', 'inactive', 'refused'];
const PASSWORD_CHECKS = ['login', 'password_grant', 'admin'];
// Every kind attempt-limits.ts reports (the Record makes a new kind a type error here), in the order of the HELP text.
const LOCKOUT_KINDS = Object.keys({
  client: true,
  unknown_clients: true,
  user: true,
  user_names: true,
  admin: true,
  user_codes: true,
  second_factors: true,
} satisfies Record<LockoutKind, true>);
/** Client ids that name no application share one label value: attackers choose them, the series must not grow. */
export const UNKNOWN_CLIENT = '(unknown)';
/** Without clientIdLabels, every application's failures share this value: the scrape names no client (issue 29 item 13). */
export const SOME_APPLICATION = '(application)';

/** Requests without a matching route (404s) share one label value, so junk URLs cannot grow the series. */
export const UNMATCHED_ROUTE = '(unmatched)';

interface RequestSeries {
  count: CounterSeries;
  duration: HistogramSeries;
}

export interface ServiceMetricsSet {
  registry: MetricsRegistry;
  api: ServiceMetrics;
  /** Per response: the route pattern (never the raw URL), its status and how long it took. */
  recordRequest(method: string, route: string | undefined, status: number, seconds: number): void;
}

export interface ServiceMetricsOptions {
  poolStats: () => PoolStats;
  /** The read replica's pool (databaseReadUrl); its series exist only when there is one. */
  readPoolStats?: () => PoolStats;
  buckets?: readonly number[];
  /** Label failed client authentications with the client id (config metrics.clientIdLabels); default off. */
  clientIdLabels?: boolean;
}

export function createServiceMetrics({
  poolStats,
  readPoolStats,
  buckets = LATENCY_BUCKETS,
  clientIdLabels = false,
}: ServiceMetricsOptions): ServiceMetricsSet {
  const registry = new MetricsRegistry();
  const labels = ['method', 'route', 'status'];
  const requests = registry.counter('http_requests_total', 'HTTP requests served, by method, route pattern and status.', labels);
  const durations = registry.histogram(
    'http_request_duration_seconds',
    'HTTP response time in seconds, by method, route pattern and status.',
    labels,
    buckets,
  );
  const issued = registry.counter('oauth_tokens_issued_total', 'Access tokens issued, by grant type.', ['grant_type']);
  const introspections = registry.counter('oauth_introspections_total', 'Introspection requests, by result (active, inactive, refused).', [
    'result',
  ]);

  // Known label values start at 0, so rate() sees the first increment (Prometheus naming guidance).
  const issuedByGrant = new Map(KNOWN_GRANT_TYPES.map((grant) => [grant, issued.labels(grant)]));
  const introspectionByResult = new Map(INTROSPECTION_RESULTS.map((result) => [result, introspections.labels(result)]));

  const security = securityCounters(registry, clientIdLabels);

  registerPoolGauges(registry, 'oauth_db_pool', 'the pool', poolStats);
  const fallbacks =
    readPoolStats &&
    registry
      .counter('oauth_db_read_fallbacks_total', 'Times the read replica failed and token reads moved to the primary for a few seconds.')
      .labels();
  if (readPoolStats) registerPoolGauges(registry, 'oauth_db_read_pool', "the read replica's pool", readPoolStats);
  registerProcessMetrics(registry);

  return {
    registry,
    api: {
      tokensIssued(grantType) {
        (issuedByGrant.get(grantType) ?? issued.labels(grantType)).inc();
      },
      introspection(result) {
        introspectionByResult.get(result)!.inc();
      },
      readReplicaFallback() {
        fallbacks?.inc();
      },
      ...security,
      registrationCap: registrationCapMetrics(registry),
      logoutDelivery: logoutDeliveryMetrics(registry),
    },
    recordRequest: requestRecorder(requests, durations),
  };
}

type SecurityCounters = Pick<ServiceMetrics, 'clientAuthenticationFailed' | 'passwordCheckFailed' | 'lockout' | 'revocation'>;

/** What an operator watches for attacks (SPEC 3.7): failed authentication per client, failed passwords, lockouts. */
function securityCounters(registry: MetricsRegistry, clientIdLabels: boolean): SecurityCounters {
  const clientFailures = registry.counter(
    'oauth_client_authentication_failures_total',
    clientIdLabels
      ? `Failed client authentications at token, revoke and introspect, by client id ("${UNKNOWN_CLIENT}" for ids of no application).`
      : `Failed client authentications at token, revoke and introspect: "${SOME_APPLICATION}" naming an application, "${UNKNOWN_CLIENT}" naming none.`,
    ['client_id'],
  );
  const passwordFailures = registry.counter(
    'oauth_password_failures_total',
    'Wrong passwords, by where they were tried (login, password_grant, admin).',
    ['kind'],
  );
  const lockouts = registry.counter(
    'oauth_lockouts_total',
    `Lockouts after repeated failures, by what was locked (${LOCKOUT_KINDS.join(', ')}).`,
    ['kind'],
  );
  const revocations = registry.counter('oauth_revocations_total', 'Tokens revoked at /oauth/revoke.').labels();
  const unknownClient = clientFailures.labels(UNKNOWN_CLIENT);
  // A scrape that names confidential clients tells whoever reads it which client ids exist and are under attack.
  const someApplication = clientIdLabels ? null : clientFailures.labels(SOME_APPLICATION);
  const byKind = (counter: Counter, kinds: string[]) => new Map(kinds.map((kind) => [kind, counter.labels(kind)]));
  const passwordByKind = byKind(passwordFailures, PASSWORD_CHECKS);
  const lockoutByKind = byKind(lockouts, LOCKOUT_KINDS);
  return {
    clientAuthenticationFailed: (clientId) =>
      (clientId === null ? unknownClient : (someApplication ?? clientFailures.labels(clientId))).inc(),
    passwordCheckFailed: (kind) => (passwordByKind.get(kind) ?? passwordFailures.labels(kind)).inc(),
    lockout: (kind) => (lockoutByKind.get(kind) ?? lockouts.labels(kind)).inc(),
    revocation: () => revocations.inc(),
  };
}

function registerPoolGauges(registry: MetricsRegistry, prefix: string, pool: string, stats: () => PoolStats): void {
  registry.gauge(`${prefix}_in_use`, `Database connections checked out of ${pool}.`, () => {
    const { total, idle } = stats();
    return total - idle;
  });
  registry.gauge(`${prefix}_idle`, `Open database connections waiting in ${pool}.`, () => stats().idle);
  registry.gauge(`${prefix}_waiting`, `Queries queued for a connection of ${pool}.`, () => stats().waiting);
}

/** Series cached per method, route and status: after the first request of a kind, no strings are built. */
function requestRecorder(requests: Counter, durations: Histogram): ServiceMetricsSet['recordRequest'] {
  const byRoute = new Map<string, Map<string, Map<number, RequestSeries>>>();
  return (method, route = UNMATCHED_ROUTE, status, seconds) => {
    let byMethod = byRoute.get(route);
    if (!byMethod) byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      const values = [method, route, String(status)];
      series = { count: requests.labels(...values), duration: durations.labels(...values) };
      byStatus.set(status, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  };
}

function registerProcessMetrics(registry: MetricsRegistry): void {
  const startTime = Math.floor(Date.now() / 1000 - process.uptime());
  registry.gauge('process_resident_memory_bytes', 'Resident set size of the process in bytes.', () => process.memoryUsage.rss());
  registry.gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.', () => startTime);
  registry.gauge('process_uptime_seconds', 'Seconds since the process started.', () => process.uptime());
  registry.sampledCounter('process_cpu_seconds_total', 'User and system CPU time spent, in seconds.', () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  });
  registry.gauge('nodejs_heap_used_bytes', 'V8 heap in use, in bytes.', () => process.memoryUsage().heapUsed);
}
