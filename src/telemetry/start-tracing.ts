import { register } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';

// Traces over OTLP (issue 32 item 6; docs/operations.md "Traces"). Imported by main.ts only when tracingRequested()
// says so, and before anything else of the service is imported: the pg instrumentation patches pg as it loads.
// The SDK reads the standard OTEL_* variables itself (endpoint, headers, protocol, sampler, batch delay, service name).

export interface Tracing {
  /** Exports the spans still buffered, then stops the SDK. */
  shutdown(): Promise<void>;
}

export function startTracing(): Tracing {
  // pg is CommonJS imported from ES modules (storage/database.ts): require-in-the-middle does not see that import,
  // import-in-the-middle's loader hook does. Limited to pg: every other module loads untouched.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['pg', 'pg-pool'] } });
  const sdk = new NodeSDK({
    serviceName: 'oauth-service',
    // Traces only. Left to the environment, the SDK would also export metrics and logs over OTLP (OTEL_METRICS_EXPORTER
    // and OTEL_LOGS_EXPORTER default to otlp): the undici and pg instrumentations' duration histograms, recorded on
    // every fetch and statement and sent to the same collector, beside the service's own /metrics.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // One span per request (`request`, with http.route), children for hooks and the handler. Registered on every
      // Fastify instance as it is created (Fastify's 'fastify.initialization' diagnostics channel).
      new FastifyOtelInstrumentation({ registerOnInitialization: true, ignorePaths: '/healthz' }),
      // Statement spans on PostgreSQL; the statement text only (pg's values, which hold token hashes, never).
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
      // Node's fetch (undici): metadata documents, JWKS, back-channel logout, and the guard's introspection calls,
      // which thereby carry the caller's traceparent (W3C trace context, the SDK's default propagator). A delivery the
      // logout worker sends outside any request is a trace of its own.
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
