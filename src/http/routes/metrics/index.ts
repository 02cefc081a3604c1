import type { FastifyPluginAsync } from 'fastify';
import { requireMetricsToken } from '../../hooks/require-metrics-token.js';
import { PROMETHEUS_CONTENT_TYPE } from '../../metrics/prometheus-text.js';
import type { MetricsRegistry } from '../../metrics/registry.js';
import { noStore } from '../../no-store.js';
import { oauthErrorResponses } from '../../schemas.js';

export interface MetricsRouteOptions {
  registry: MetricsRegistry;
  /** The Bearer token a scraper must send (env METRICS_TOKEN); null: none, for the metrics listener without one. */
  token: string | null;
}

/**
 * GET /metrics in the Prometheus text format (SPEC 3.7), on the metrics listener (src/http/metrics-listener.ts)
 * and, with a token only, on the public port (issue 29 item 13).
 */
export const metricsRoutes: FastifyPluginAsync<MetricsRouteOptions> = async (app, { registry, token }) => {
  const schema = { response: { 200: { type: 'string', description: 'Prometheus text exposition format 0.0.4' }, ...oauthErrorResponses } };
  const preHandler = token === null ? [] : [requireMetricsToken(token)];
  app.get('/metrics', { schema, preHandler }, async (_request, reply) => {
    noStore(reply, { pragma: false }).type(PROMETHEUS_CONTENT_TYPE);
    return registry.render();
  });
};
