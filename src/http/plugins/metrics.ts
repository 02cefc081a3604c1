import fp from 'fastify-plugin';
import type { ServiceMetrics, ServiceMetricsSet } from '../metrics/service-metrics.js';
import { metricsRoutes } from '../routes/metrics/index.js';

export interface MetricsPluginOptions {
  /** The service's metrics (createServiceMetrics), shared with the metrics listener. */
  metrics: ServiceMetricsSet;
  /**
   * Serve GET /metrics on this server, behind this Bearer token (null: no token); absent: not here. The public
   * port serves it only with METRICS_TOKEN (issue 29 item 13): an unauthenticated scrape names routes, failure
   * counts and lockouts to anyone.
   */
  route?: { token: string | null };
}

/**
 * Counts every response by route pattern and status (SPEC 3.7), gives the routes `app.metrics` for tokens,
 * introspections and failures, and serves the exposition where `route` says. Register it before the routes.
 */
export const metricsPlugin = fp<MetricsPluginOptions>(
  async (app, { metrics, route }) => {
    app.decorate('metrics', metrics.api);

    // One synchronous hook per response. Labels use the route pattern, never the raw URL, so a client
    // cannot create series (or inject label text) with arbitrary paths.
    app.addHook('onResponse', (request, reply, done) => {
      metrics.recordRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });

    if (route) await app.register(metricsRoutes, { registry: metrics.registry, ...route });
  },
  { name: 'metrics', fastify: '5.x' },
);

declare module 'fastify' {
  interface FastifyInstance {
    /** Counters the routes update (tokens issued, introspection results); see src/http/plugins/metrics.ts. */
    metrics: ServiceMetrics;
  }
}
