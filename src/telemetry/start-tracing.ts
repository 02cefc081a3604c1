import { createRequire, register, syncBuiltinESMExports } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { setStatementTracer, type StatementTracer } from './statement-tracer.js';

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
      // Node's fetch (undici): the guard's introspection calls when the guard runs in a traced process, which thereby
      // carry the caller's traceparent (W3C trace context, the SDK's default propagator).
      new UndiciInstrumentation(),
      // node:http(s) requests, which the service's own outbound calls use (metadata documents, sector_identifier_uri,
      // back-channel logout: their sockets are checked against the SSRF rules). Outgoing only: a request in is
      // @fastify/otel's span. A delivery the logout worker sends outside any request is a trace of its own.
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
    ],
  });
  sdk.start();
  setStatementTracer(pgliteStatementSpans());
  // The http instrumentation patches node:http(s) through require (require-in-the-middle); the service's ES modules
  // import them by name, and those bindings follow the CommonJS exports only once synced.
  const require = createRequire(import.meta.url);
  require('http');
  require('https');
  syncBuiltinESMExports();
  return { shutdown: () => sdk.shutdown() };
}

// The embedded database's statements, as pg's instrumentation names PostgreSQL's: a child of the request's span (none
// outside a request, as pg's requireParentSpan), the statement text only, never the values.
function pgliteStatementSpans(): StatementTracer {
  const tracer = trace.getTracer('oauth-service-pglite');
  return (statement, run) => {
    if (trace.getActiveSpan() === undefined) return run();
    const attributes = { 'db.system': 'postgresql', 'db.statement': statement.slice(0, 2_000) };
    return tracer.startActiveSpan('pglite.query', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        return await run();
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  };
}
