import fp from 'fastify-plugin';
import { PROMETHEUS_CONTENT_TYPE } from '../metrics/prometheus-text.js';
import { createServiceMetrics, type PoolStats, type ServiceMetrics } from '../metrics/service-metrics.js';
import { noStore } from '../no-store.js';

export interface MetricsPluginOptions {
  /** The database pool's counts, read at each scrape. */
  poolStats: () => PoolStats;
  /** The read replica pool's counts, when there is a read replica. */
  readPoolStats?: () => PoolStats;
  /** Where the exposition is served (default /metrics). */
  path?: string;
}

/**
 * GET /metrics in the Prometheus text format (SPEC 3.7): requests by route pattern and status with latency
 * histograms, tokens issued by grant, introspections by result, the database pool and the process.
 * Register it before the routes; the routes report tokens and introspections through `app.metrics`.
 */
export const metricsPlugin = fp<MetricsPluginOptions>(
  async (app, { poolStats, readPoolStats, path = '/metrics' }) => {
    const metrics = createServiceMetrics({ poolStats, readPoolStats });
    app.decorate('metrics', metrics.api);

    // One synchronous hook per response. Labels use the route pattern, never the raw URL, so a client
    // cannot create series (or inject label text) with arbitrary paths.
    app.addHook('onResponse', (request, reply, done) => {
      metrics.recordRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });

    const schema = { response: { 200: { type: 'string', description: 'Prometheus text exposition format 0.0.4' } } };
    app.get(path, { schema }, async (_request, reply) => {
      noStore(reply, { pragma: false }).type(PROMETHEUS_CONTENT_TYPE);
      return metrics.registry.render();
    });
  },
  { name: 'metrics', fastify: '5.x' },
);

declare module 'fastify' {
  interface FastifyInstance {
    /** Counters the routes update (tokens issued, introspection results); see src/http/plugins/metrics.ts. */
    metrics: ServiceMetrics;
  }
}
