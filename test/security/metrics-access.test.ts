import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import { createClient } from '../helpers/factories.js';
import { scrapeMetrics } from '../helpers/metrics-scrape.js';
import { runService, serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// Issue 29 item 13: /metrics named routes, failure counts, lockouts and confidential client ids to anyone who
// asked the public port. The scrape now belongs to the operator: a listener of its own (loopback by default), and
// on the public port only with METRICS_TOKEN; and it names no client unless metrics.clientIdLabels says so.

const TOKEN = 'operator-metrics-token-0123456789abcdef';
const CHALLENGE = 'Bearer realm="oauth-service"';

describe(`issue 29 item 13: who may read /metrics (${backend})`, () => {
  let testDatabase: TestDatabase;
  beforeAll(async () => {
    testDatabase = await createTestDatabase();
  });
  afterAll(() => testDatabase.drop());

  const withServer = async (
    options: { config?: Record<string, unknown>; env?: Record<string, string> },
    work: (server: TestServer) => Promise<void>,
  ) => {
    const server = await buildTestServer({ ...options, testDatabase });
    try {
      await work(server);
    } finally {
      await server.close();
    }
  };

  it('issue 29 item 13 (RFC 6750 section 3.1): without METRICS_TOKEN, GET /metrics on the public port is 404 to anyone; the operator reads it on the metrics listener', async () => {
    await withServer({}, async (server) => {
      for (const authorization of [undefined, `Bearer ${TOKEN}`]) {
        const response = await server.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ error: 'not_found' });
        expect(response.body).not.toContain('http_requests_total');
      }
      expect(await scrapeMetrics(server.app)).toContain('# TYPE http_requests_total counter\n');
      // The listener serves /metrics and nothing else of the service.
      expect((await server.app.metricsListener!.inject({ method: 'GET', url: '/oauth/token/info' })).statusCode).toBe(404);
      expect((await server.app.metricsListener!.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(404);
    });
    // metrics.port null: no listener at all, and still nothing on the public port.
    await withServer({ config: { metrics: { port: null } } }, async (server) => {
      expect(server.app.metricsListener).toBeNull();
      expect((await server.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    });
  });

  it('issue 29 item 13 (RFC 6750 section 3.1): with METRICS_TOKEN, GET /metrics is 401 with a Bearer challenge to a stranger (no token, a wrong one, another scheme) and 200 to the operator, on both ports', async () => {
    await withServer({ env: { METRICS_TOKEN: TOKEN } }, async (server) => {
      for (const [label, app] of [
        ['public port', server.app],
        ['metrics listener', server.app.metricsListener!],
      ] as const) {
        const scrape = (authorization?: string) =>
          app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
        for (const [presented, challenge] of [
          [undefined, CHALLENGE],
          [`Basic ${Buffer.from(`metrics:${TOKEN}`).toString('base64')}`, CHALLENGE],
          [`Bearer ${TOKEN.slice(0, -1)}x`, `${CHALLENGE}, error="invalid_token", error_description="The access token is invalid"`],
          [`Bearer ${TOKEN}x`, `${CHALLENGE}, error="invalid_token", error_description="The access token is invalid"`],
        ] as const) {
          const refused = await scrape(presented);
          expect(refused.statusCode, `${label}: ${presented}`).toBe(401);
          expect(refused.headers['www-authenticate'], `${label}: ${presented}`).toBe(challenge);
          expect(refused.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
        }
        const scraped = await scrape(`Bearer ${TOKEN}`);
        expect(scraped.statusCode, label).toBe(200);
        expect(scraped.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
        expect(scraped.body).toContain('# TYPE oauth_tokens_issued_total counter\n');
      }
    });
    // A guessable token is refused at boot, like a short admin password.
    await expect(buildTestServer({ env: { METRICS_TOKEN: 'short' }, testDatabase })).rejects.toThrow(
      /METRICS_TOKEN: must be at least 32 characters/,
    );
  });

  it('issue 29 item 13 (RFC 6749 section 2.2): failed client authentications are counted without client ids by default; metrics.clientIdLabels: true names them', async () => {
    const failures = async (server: TestServer) => {
      const client = await createClient(server.deps);
      const fail = (id: string) =>
        server.app.inject({
          method: 'POST',
          url: '/oauth/token',
          headers: { ...FORM, authorization: basicAuth(id, 'wrong') },
          payload: form({ grant_type: 'client_credentials' }),
        });
      expect((await fail(client.uid)).statusCode).toBe(401);
      expect((await fail('nobody-registered-this')).statusCode).toBe(401);
      return { uid: client.uid, text: await scrapeMetrics(server.app) };
    };
    await withServer({}, async (server) => {
      const { uid, text } = await failures(server);
      expect(text).toContain('oauth_client_authentication_failures_total{client_id="(application)"} 1\n');
      expect(text).toContain('oauth_client_authentication_failures_total{client_id="(unknown)"} 1\n');
      expect(text).not.toContain(uid);
      expect(text).not.toContain('nobody-registered-this');
    });
    await withServer({ config: { metrics: { clientIdLabels: true } } }, async (server) => {
      const { uid, text } = await failures(server);
      expect(text).toContain(`oauth_client_authentication_failures_total{client_id="${uid}"} 1\n`);
      expect(text).toContain('oauth_client_authentication_failures_total{client_id="(unknown)"} 1\n');
      expect(text).not.toContain('(application)');
    });
  });
});

describe(`issue 29 item 13: oauth-service serve and its metrics listener (${backend})`, () => {
  let fixture: ServiceFixture;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    fixture = await serviceFixture('oauth-metrics-listener-');
    env = fixture.env;
  });
  afterAll(() => fixture.dispose());

  it('issue 29 item 13 (operations, a listener of its own): a listening server answers /metrics on METRICS_HOST:METRICS_PORT, not on the public port, and stops both on SIGTERM; a busy metrics port stops the boot, naming it', async () => {
    const metricsPort = await freePort();
    const service = await startService({ ...env, METRICS_HOST: '127.0.0.1', METRICS_PORT: String(metricsPort) });
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    try {
      expect((await fetch(`${service.baseUrl}/metrics`)).status).toBe(404);
      const scraped = await fetch(metricsUrl);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/http_requests_total\{method="GET",route="\/readyz",status="200"\} [1-9]/);
    } finally {
      expect(await stopService(service.child)).toBe(0);
    }
    await expect(fetch(metricsUrl)).rejects.toThrow();

    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(metricsPort, '127.0.0.1', resolve));
    try {
      const refused = await runService(['serve'], {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        METRICS_PORT: String(metricsPort),
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `cannot listen on 127.0.0.1:${metricsPort} (metrics): the port is already in use (set METRICS_PORT, or metrics.port null for none`,
      );
    } finally {
      busy.close();
    }
  }, 120_000);
});
