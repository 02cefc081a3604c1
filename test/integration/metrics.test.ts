import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceMetrics, type PoolStats } from '../../src/http/metrics/service-metrics.js';
import { metricsPlugin } from '../../src/http/plugins/metrics.js';
import { sharedSchemasPlugin } from '../../src/http/schemas.js';
import { scrapeMetrics } from '../helpers/metrics-scrape.js';

/** The plugin serving /metrics without a token, as the metrics listener does. */
const served = (poolStats: () => PoolStats, readPoolStats?: () => PoolStats) => ({
  metrics: createServiceMetrics({ poolStats, readPoolStats }),
  route: { token: null },
});

// app.ts registers the plugin on the real server; here it sits on a small app with known routes, so that
// counts by route and status are exact.
describe('GET /metrics (Prometheus text, SPEC 3.7)', () => {
  let app: FastifyInstance;
  const pool = { total: 4, idle: 1, waiting: 2 };

  beforeAll(async () => {
    app = Fastify();
    await app.register(sharedSchemasPlugin);
    await app.register(
      metricsPlugin,
      served(() => pool),
    );
    app.get('/items/:id', async () => ({ ok: true }));
    app.post('/fail', async (_request, reply) => reply.code(400).send({ error: 'invalid_request' }));
    await app.ready();
  });
  afterAll(() => app.close());

  const scrape = async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    return response;
  };

  it('serves the text format with its content type and no caching', async () => {
    const response = await scrape();
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('# TYPE http_requests_total counter\n');
    expect(response.body).toContain('# TYPE http_request_duration_seconds histogram\n');
  });

  it('counts requests by route pattern (not raw URL), method and status, with a latency histogram each', async () => {
    for (const id of ['1', '2', 'abc']) await app.inject({ method: 'GET', url: `/items/${id}` });
    await app.inject({ method: 'POST', url: '/fail' });
    const { body } = await scrape();
    expect(body).toContain('http_requests_total{method="GET",route="/items/:id",status="200"} 3\n');
    expect(body).toContain('http_requests_total{method="POST",route="/fail",status="400"} 1\n');
    expect(body).not.toContain('/items/abc');
    expect(body).toContain('http_request_duration_seconds_count{method="GET",route="/items/:id",status="200"} 3\n');
    expect(body).toContain('http_request_duration_seconds_bucket{method="GET",route="/items/:id",status="200",le="+Inf"} 3\n');
  });

  it('puts every unmatched URL under one route label, so 404 floods add no series', async () => {
    await app.inject({ method: 'GET', url: '/nope/1' });
    await app.inject({ method: 'GET', url: '/nope/"2"' });
    const { body } = await scrape();
    expect(body).toContain('http_requests_total{method="GET",route="(unmatched)",status="404"} 2\n');
    expect(body).not.toContain('/nope');
  });

  it('counts tokens issued by grant type, starting every known grant at 0', async () => {
    app.metrics.tokensIssued('client_credentials');
    app.metrics.tokensIssued('client_credentials');
    app.metrics.tokensIssued('refresh_token');
    const { body } = await scrape();
    expect(body).toContain('oauth_tokens_issued_total{grant_type="client_credentials"} 2\n');
    expect(body).toContain('oauth_tokens_issued_total{grant_type="refresh_token"} 1\n');
    expect(body).toContain('oauth_tokens_issued_total{grant_type="authorization_code"} 0\n');
  });

  it('counts introspections by result: active, inactive, refused', async () => {
    app.metrics.introspection('active');
    app.metrics.introspection('refused');
    const { body } = await scrape();
    expect(body).toContain('oauth_introspections_total{result="active"} 1\n');
    expect(body).toContain('oauth_introspections_total{result="inactive"} 0\n');
    expect(body).toContain('oauth_introspections_total{result="refused"} 1\n');
  });

  it('reports the database pool as read at scrape time: in use, idle, waiting', async () => {
    pool.total = 5;
    const { body } = await scrape();
    expect(body).toContain('\noauth_db_pool_in_use 4\n');
    expect(body).toContain('\noauth_db_pool_idle 1\n');
    expect(body).toContain('\noauth_db_pool_waiting 2\n');
    expect(body).not.toContain('oauth_db_read');
  });

  it('with a read replica, also reports its pool and the times reads fell back to the primary', async () => {
    const withReplica = Fastify();
    await withReplica.register(sharedSchemasPlugin);
    await withReplica.register(
      metricsPlugin,
      served(
        () => pool,
        () => ({ total: 3, idle: 1, waiting: 0 }),
      ),
    );
    await withReplica.ready();
    withReplica.metrics.readReplicaFallback();
    withReplica.metrics.readReplicaFallback();
    const { body } = await withReplica.inject({ method: 'GET', url: '/metrics' });
    await withReplica.close();
    expect(body).toContain('\noauth_db_read_pool_in_use 2\n');
    expect(body).toContain('\noauth_db_read_pool_idle 1\n');
    expect(body).toContain('\noauth_db_read_pool_waiting 0\n');
    expect(body).toContain('# TYPE oauth_db_read_fallbacks_total counter\noauth_db_read_fallbacks_total 2\n');
  });

  it('reports the process: resident memory, uptime, start time and CPU', async () => {
    const { body } = await scrape();
    expect(body).toMatch(/\nprocess_resident_memory_bytes [1-9]\d*\n/);
    expect(body).toMatch(/\nprocess_uptime_seconds [\d.]+\n/);
    expect(body).toMatch(/\nprocess_start_time_seconds \d+\n/);
    expect(body).toMatch(/\nprocess_cpu_seconds_total [\d.e-]+\n/);
  });

  it('counts its own scrapes like any route', async () => {
    await scrape();
    const { body } = await scrape();
    expect(body).toMatch(/http_requests_total\{method="GET",route="\/metrics",status="200"\} \d+\n/);
  });
});

describe('GET /metrics on the service, from its metrics listener (SPEC 3.7)', () => {
  it('counts requests by route and status, tokens issued by grant and introspections by result, and reports the pool', async () => {
    const { buildTestServer, basicAuth, form, FORM } = await import('../helpers/test-server.js');
    const { createClient } = await import('../helpers/factories.js');
    const server = await buildTestServer();
    const client = await createClient(server.deps);
    const auth = { ...FORM, authorization: basicAuth(client.uid, client.secret!) };
    const issued = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: auth,
      payload: form({ grant_type: 'client_credentials' }),
    });
    await server.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: auth,
      payload: form({ token: issued.json().access_token }),
    });
    await server.app.inject({ method: 'POST', url: '/oauth/introspect', headers: auth, payload: form({ token: 'unknown' }) });
    await server.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: { ...FORM, authorization: 'Bearer nope' },
      payload: form({ token: 'x' }),
    });
    const text = await scrapeMetrics(server.app);
    expect(text).toContain('oauth_tokens_issued_total{grant_type="client_credentials"} 1');
    expect(text).toContain('oauth_introspections_total{result="active"} 1');
    expect(text).toContain('oauth_introspections_total{result="inactive"} 1');
    expect(text).toContain('oauth_introspections_total{result="refused"} 1');
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/oauth\/introspect",status="200"\} 2/);
    expect(text).toMatch(/oauth_db_pool_idle \d+/);
    await server.close();
  });
});
