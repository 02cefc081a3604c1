import { createRequire, register, syncBuiltinESMExports } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { DiagConsoleLogger, SpanKind, SpanStatusCode, diag, trace } from '@opentelemetry/api';
import { diagLogLevelFromString } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { redactUrl } from '../http/plugins/logger-options.js';
import { setStatementTracer, type StatementTracer } from './statement-tracer.js';
import type { TraceProtocol } from './trace-protocol.js';

// Traces over OTLP (issue 32 item 6; docs/operations.md "Traces"). Imported by main.ts only when tracingRequested()
// says so, and before anything else of the service is imported: the pg instrumentation patches pg as it loads.
// A tracer provider with the OTLP/HTTP exporters, not OpenTelemetry's Node SDK: the SDK depends on every exporter it
// can choose (gRPC, metrics, logs, Zipkin, Prometheus), about 45 MB of the image for nothing the service sends
// (issue 33). What the SDK read from the environment, these pieces read themselves: the exporter its endpoint,
// headers, timeout and compression (OTEL_EXPORTER_OTLP_*), the provider its sampler (OTEL_TRACES_SAMPLER(_ARG)) and
// span limits, the batch processor OTEL_BSP_*, the resource detector OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
// Only traces: no meter or logger provider exists, so the instrumentations' metrics are never recorded or sent.

export interface Tracing {
  /** Exports the spans still buffered, then stops the tracer provider; never rejects, reports a failed export. */
  shutdown(report: (problem: string) => void): Promise<void>;
}

export function startTracing(protocol: TraceProtocol, env: Record<string, string | undefined>): Tracing {
  // pg is CommonJS imported from ES modules (storage/database.ts): require-in-the-middle does not see that import,
  // import-in-the-middle's loader hook does. Limited to pg: every other module loads untouched.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['pg', 'pg-pool'] } });
  // OpenTelemetry's own diagnostics (export failures among them), as the SDK shows them: only when asked for.
  const logLevel = env.OTEL_LOG_LEVEL?.trim();
  if (logLevel) diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(logLevel) });
  const exporter = protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const provider = new NodeTracerProvider({
    resource: serviceResource(),
    spanProcessors: [queryRedaction(), new BatchSpanProcessor(exporter)],
  });
  // The context manager (AsyncLocalStorage) and the W3C trace context and baggage propagators.
  provider.register();
  registerInstrumentations({
    instrumentations: [
      // One span per request (`request`, with http.route), children for hooks and the handler. Registered on every
      // Fastify instance as it is created (Fastify's 'fastify.initialization' diagnostics channel).
      new FastifyOtelInstrumentation({ registerOnInitialization: true, ignorePaths: '/healthz' }),
      // Statement spans on PostgreSQL; the statement text only (pg's values, which hold token hashes, never).
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
      // Node's fetch (undici): the guard's introspection calls when the guard runs in a traced process, which thereby
      // carry the caller's traceparent.
      new UndiciInstrumentation(),
      // node:http(s) requests, which the service's own outbound calls use (metadata documents, sector_identifier_uri,
      // back-channel logout: their sockets are checked against the SSRF rules). Outgoing only: a request in is
      // @fastify/otel's span. A delivery the logout worker sends outside any request is a trace of its own.
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
    ],
  });
  setStatementTracer(pgliteStatementSpans());
  // The http instrumentation patches node:http(s) through require (require-in-the-middle); the service's ES modules
  // import them by name, and those bindings follow the CommonJS exports only once synced.
  const require = createRequire(import.meta.url);
  require('http');
  require('https');
  syncBuiltinESMExports();
  return {
    // For FLUSH_DEADLINE_MS at most: a collector that is down or never answers neither holds a stopping service past
    // its orchestrator's grace (docker stop's 10 s) nor turns the stop into a failure (an unhandled rejection, exit 1).
    async shutdown(report) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`the collector did not answer within ${FLUSH_DEADLINE_MS / 1000} s`), FLUSH_DEADLINE_MS);
      });
      const flushed = provider.shutdown().then(
        () => null,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      const problem = await Promise.race([flushed, deadline]);
      clearTimeout(timer);
      if (problem !== null) report(`traces: the last spans were not exported (${problem})`);
    },
  };
}

const FLUSH_DEADLINE_MS = 2_000;

// service.name oauth-service unless OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) says otherwise,
// with the SDK's telemetry.sdk.* attributes and the process and host, as the Node SDK described the service.
function serviceResource(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'oauth-service' }))
    .merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }));
}

// docs/operations.md "Traces": no token, code or secret is an attribute. @fastify/otel's url.path is request.url, the
// query included (`/oauth/token/info?access_token=...`), and the client instrumentations' URLs are what the service
// calls. As each span ends, before any is exported, a query in these holds what the request log's URL holds.
const URL_ATTRIBUTES = ['url.path', 'url.full', 'url.query', 'http.target', 'http.url'];

function queryRedaction(): SpanProcessor {
  const redact = (span: Span) => {
    for (const key of URL_ATTRIBUTES) {
      const value = span.attributes[key];
      if (typeof value !== 'string') continue;
      // url.query is the query alone: with its `?` from undici, without it in the semantic conventions.
      const redacted = key === 'url.query' && !value.startsWith('?') ? redactUrl(`?${value}`).slice(1) : redactUrl(value);
      if (redacted !== value) span.setAttribute(key, redacted);
    }
  };
  return {
    onStart: () => undefined,
    // Called while the span can still be changed: the attributes set after its start are there too.
    onEnding: redact,
    onEnd: () => undefined,
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
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
