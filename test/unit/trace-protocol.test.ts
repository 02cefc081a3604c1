import { describe, expect, it } from 'vitest';
import { traceProtocol } from '../../src/telemetry/trace-protocol.js';

// The OTLP protocol `serve` exports traces with (docs/operations.md "Traces"): OTLP/HTTP only (issue 33).
describe('traceProtocol', () => {
  it('is http/protobuf unless set, or set blank', () => {
    expect(traceProtocol({})).toEqual({ protocol: 'http/protobuf' });
    expect(traceProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: ' ', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '' })).toEqual({
      protocol: 'http/protobuf',
    });
  });

  it('takes http/json or http/protobuf, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL before OTEL_EXPORTER_OTLP_PROTOCOL', () => {
    expect(traceProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({ protocol: 'http/json' });
    expect(traceProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: ' HTTP/JSON ' })).toEqual({ protocol: 'http/json' });
    expect(traceProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toEqual({
      protocol: 'http/protobuf',
    });
  });

  it('refuses grpc, naming the variable that asked for it and what to set instead', () => {
    expect(traceProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      error:
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported: traces are exported over OTLP/HTTP only; set http/protobuf (a collector's port 4318) or http/json",
    });
  });

  it('refuses any other value, quoted', () => {
    expect(traceProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http' })).toEqual({
      error: 'OTEL_EXPORTER_OTLP_PROTOCOL="http" is not a supported OTLP protocol: use http/protobuf or http/json',
    });
  });
});
