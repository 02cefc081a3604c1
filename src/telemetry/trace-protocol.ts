import { tracingRequested } from './tracing-requested.js';

// The OTLP protocol `serve` exports its traces with (docs/operations.md "Traces"), read from the standard variables
// without loading any of OpenTelemetry, so that an unsupported one stops the boot before anything starts. The service
// carries the OTLP/HTTP exporters only: gRPC's (@grpc/grpc-js and protobufjs) would add about 10 MB to the image for
// a protocol every collector also serves over HTTP (issue 33).

export type TraceProtocol = 'http/protobuf' | 'http/json';

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'] satisfies TraceProtocol[];

/**
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf (the OpenTelemetry
 * specification's order and default); or, for a value the service cannot export with, the one-line reason.
 */
export function traceProtocol(env: Record<string, string | undefined>): { protocol: TraceProtocol } | { error: string } {
  for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = env[variable]?.trim().toLowerCase();
    if (value === undefined || value === '') continue;
    if (PROTOCOLS.includes(value)) return { protocol: value as TraceProtocol };
    if (value === 'grpc') {
      return {
        error: `${variable}=grpc is not supported: traces are exported over OTLP/HTTP only; set http/protobuf (a collector's port 4318) or http/json`,
      };
    }
    return { error: `${variable}=${JSON.stringify(env[variable])} is not a supported OTLP protocol: use http/protobuf or http/json` };
  }
  return { protocol: 'http/protobuf' };
}

/** The protocol of the traces asked for (an OTLP endpoint set), or why it cannot be used; null when none are asked for. */
export function requestedTraceProtocol(env: Record<string, string | undefined>): ReturnType<typeof traceProtocol> | null {
  return tracingRequested(env) ? traceProtocol(env) : null;
}
