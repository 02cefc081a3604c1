// config `telemetry` (issue 32 item 6): what the traces exported with OTEL_EXPORTER_OTLP_ENDPOINT may say about
// the client. Whether traces are exported at all is the environment's (docs/operations.md "Traces"). Part of
// config/schema.ts.

export const telemetrySchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'Traces over OTLP, exported only while env OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set (docs/operations.md "Traces").',
  properties: {
    clientIdAttribute: {
      enum: ['plain', 'hashed', 'none'],
      default: 'hashed',
      description:
        'How a request span names the client: "plain" (attribute oauth.client_id), "hashed" (oauth.client_id_hash, the first 16 base64url characters of its SHA-256, so spans of one client can be grouped without the collector learning its id) or "none".',
    },
  },
} as const;
