// config `metrics` (issue 29 item 13): where GET /metrics is served and what its labels may name. The bearer
// token of the public port comes only from the environment (METRICS_TOKEN). Part of config/schema.ts.

export const metricsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'GET /metrics (Prometheus text). Never served unauthenticated on the public port: on a listener of its own (host and port), and on the public port only with env METRICS_TOKEN, which both then require as a Bearer token.',
  properties: {
    host: {
      type: 'string',
      minLength: 1,
      default: '127.0.0.1',
      description:
        'Interface of the metrics listener (env METRICS_HOST). Loopback by default; in a container, 0.0.0.0 on a port that is not published, so only the internal network reaches it.',
    },
    port: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 65535,
      default: 9464,
      description:
        'Port of the metrics listener, which serves /metrics only (env METRICS_PORT). null (METRICS_PORT=null): no metrics listener.',
    },
    clientIdLabels: {
      type: 'boolean',
      default: false,
      description:
        'Label failed client authentications with the client id. false: every application\'s failures share client_id="(application)", unknown ids "(unknown)", so the scrape names no client.',
    },
  },
} as const;
