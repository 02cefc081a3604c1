import type { FastifyInstance } from 'fastify';

/** GET /metrics as the operator scrapes it by default: on the metrics listener (config metrics.port), never the public port. */
export async function scrapeMetrics(app: FastifyInstance): Promise<string> {
  if (!app.metricsListener) throw new Error('no metrics listener (metrics.port is null)');
  const response = await app.metricsListener.inject({ method: 'GET', url: '/metrics' });
  if (response.statusCode !== 200) throw new Error(`GET /metrics on the metrics listener: ${response.statusCode} ${response.body}`);
  return response.body;
}
