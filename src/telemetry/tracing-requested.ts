// Whether `serve` exports traces (docs/operations.md "Traces"), decided from the standard OpenTelemetry variables
// alone, without loading any of OpenTelemetry: with tracing off the service imports none of it (no cost).

/** True when an OTLP endpoint for traces is set and neither OTEL_SDK_DISABLED nor OTEL_TRACES_EXPORTER turns it off. */
export function tracingRequested(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter !== undefined && exporter !== '' && exporter !== 'otlp') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}
