import { describe, expect, it } from 'vitest';
import { tracingRequested } from '../../src/telemetry/tracing-requested.js';

// Which environments make `serve` export traces (docs/operations.md "Traces"): an OTLP endpoint, unless turned off.
describe('tracingRequested', () => {
  const endpoint = 'http://collector:4318';

  it('is off without an endpoint, or with only blanks', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'auth' })).toBe(false);
  });

  it('is on with OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` })).toBe(true);
  });

  it('OTEL_SDK_DISABLED=true (any case) turns it off; another value does not', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: ' TRUE ' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });

  it('OTEL_TRACES_EXPORTER other than otlp (none, console) turns it off; otlp or empty keeps it', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'console' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'OTLP' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: '' })).toBe(true);
  });
});
