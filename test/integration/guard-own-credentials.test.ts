import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serviceGuard, type GuardLogger, type RemoteGuardOptions } from '@oauth-service/guard';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { bearer } from './guard-helpers.js';

// Issue 32 item 3: an API whose guard has a wrong clientSecret is misconfigured, not cut off from the service. The
// real service refuses the secret (401 invalid_client); the API answers 500 server_error, and the operator reads one
// error line a minute naming the introspection URL, the status and the service's error code, never the secret.
const WRONG_SECRET = 'wrong-secret-9f8e7d6c5b4a';
const MISCONFIGURED = { error: 'server_error', error_description: 'the API is misconfigured' };

describe("guard (remote mode): the service refuses the API's own credentials", () => {
  let server: TestServer;
  let client: TestClient;
  let introspectionUrl: string;
  let accessToken: string;
  let introspections = 0;
  const guardClock = { ms: Date.now() };
  const apis: FastifyInstance[] = [];

  beforeAll(async () => {
    server = await buildTestServer();
    server.app.addHook('onRequest', async (request) => {
      if (request.url === '/oauth/introspect') introspections += 1;
    });
    introspectionUrl = `${await server.app.listen({ port: 0, host: '127.0.0.1' })}/oauth/introspect`;
    client = await createClient(server.deps);
    accessToken = (await issueToken(server.deps, { application: client.application })).accessToken;
  });
  afterAll(async () => {
    for (const api of apis) await api.close();
    await server.close();
  });

  async function protectedApi(fastifyOptions: FastifyServerOptions, guard: Partial<RemoteGuardOptions> = {}): Promise<FastifyInstance> {
    const api = Fastify(fastifyOptions);
    apis.push(api);
    await api.register(serviceGuard, {
      mode: 'remote',
      introspectionUrl,
      clientId: client.uid,
      clientSecret: WRONG_SECRET,
      now: () => guardClock.ms,
      ...guard,
    });
    api.get('/notes', { preHandler: api.serviceAuthorize() }, async () => ({ notes: [] }));
    return api;
  }

  async function expectMisconfigured(api: FastifyInstance, times: number): Promise<void> {
    for (let i = 0; i < times; i += 1) {
      const response = await api.inject({ method: 'GET', url: '/notes', headers: bearer(accessToken) });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual(MISCONFIGURED);
      // Nothing is wrong with the caller's token: no challenge that would send the client for a new one.
      expect(response.headers['www-authenticate']).toBeUndefined();
      expect(response.headers['cache-control']).toBe('no-store');
    }
  }

  const reportOf = () => ({ guard: 'misconfigured', introspectionUrl, status: 401, serviceError: 'invalid_client' });

  it("answers 500 server_error, and logs one error a minute through the app's Fastify logger", async () => {
    const log = capturedLogLines();
    const optionReports: unknown[] = [];
    const api = await protectedApi(
      { logger: { level: 'info', stream: log.stream } },
      { logger: { error: (details) => optionReports.push(details) } },
    );
    const before = introspections;
    await expectMisconfigured(api, 5);
    const reports = () => log.lines.filter((line) => line.guard === 'misconfigured');
    expect(reports()).toEqual([expect.objectContaining({ level: 50, reqId: expect.any(String), ...reportOf() })]);
    expect(String(reports()[0]!.msg)).toMatch(/refused the API's own introspection request/);
    expect(optionReports).toEqual([]); // the app's logger wins over the option
    // The refused credentials are not sent again with every request (the service would lock the client out).
    expect(introspections).toBe(before + 1);
    for (const secretForm of [WRONG_SECRET, Buffer.from(`${client.uid}:${WRONG_SECRET}`).toString('base64')]) {
      expect(log.raw.join('\n')).not.toContain(secretForm);
    }

    guardClock.ms += 60_000;
    await expectMisconfigured(api, 3);
    expect(reports()).toHaveLength(2);
    expect(introspections).toBe(before + 2);
  });

  it('without a Fastify logger: logs one error a minute through the logger option', async () => {
    const reports: Array<{ details: Record<string, unknown>; message: string }> = [];
    const logger: GuardLogger = { error: (details, message) => reports.push({ details, message }) };
    const api = await protectedApi({}, { logger });
    await expectMisconfigured(api, 4);
    expect(reports).toEqual([{ details: reportOf(), message: expect.stringContaining('clientSecret') }]);
    expect(JSON.stringify(reports)).not.toContain(WRONG_SECRET);
  });

  it('without a Fastify logger or a logger option: logs one error a minute to console.error, never silently', async () => {
    const api = await protectedApi({});
    // Captured (and kept out of the test output) for this test only; restored before anything else runs.
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await expectMisconfigured(api, 4);
      expect(consoleError.mock.calls).toEqual([[expect.stringContaining('protected routes answer 500'), reportOf()]]);
    } finally {
      consoleError.mockRestore();
    }
  });

  it('refuses at registration a logger option without an error(details, message) method', async () => {
    for (const logger of [{}, 'console', null, { error: 'yes' }]) {
      await expect(protectedApi({}, { logger: logger as unknown as GuardLogger })).rejects.toThrow(
        "serviceGuard: logger must be an object with an error(details, message) method, like pino's logger",
      );
    }
  });

  // Last: it stops the service.
  it('a stopped service is still an outage: 503 temporarily_unavailable, with and without a Fastify logger', async () => {
    const log = capturedLogLines();
    const withLogger = await protectedApi({ logger: { level: 'info', stream: log.stream } }, { clientSecret: client.secret! });
    const withoutLogger = await protectedApi({}, { clientSecret: client.secret! });
    await server.app.close();
    for (const api of [withLogger, withoutLogger]) {
      const response = await api.inject({ method: 'GET', url: '/notes', headers: bearer(accessToken) });
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toBe('temporarily_unavailable');
    }
    expect(log.lines.filter((line) => line.guard === 'misconfigured')).toEqual([]);
    expect(log.lines.some((line) => line.level === 50 && line.msg === 'access token could not be verified')).toBe(true);
  });
});
