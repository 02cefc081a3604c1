import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/factories.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// Issue 29 item 11: an https issuer tells browsers to come back over https only (RFC 6797), on every response,
// whatever answers it: an endpoint, a page, an error, a 404, a URL Fastify could not even route, the guard's refusal.

const HTTPS = 'https://auth.example.com';
const ONE_YEAR = 'max-age=31536000';

const HSTS = 'strict-transport-security';

/** One answer of each kind the service gives, labelled. */
async function everyKindOfAnswer(server: TestServer): Promise<Array<[string, LightMyRequestResponse]>> {
  const client = await createClient(server.deps);
  const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}, payload?: string) =>
    server.app.inject({ method, url, headers, payload });
  const token = (secret: string) =>
    inject('POST', '/oauth/token', { ...FORM, authorization: basicAuth(client.uid, secret) }, form({ grant_type: 'client_credentials' }));
  return [
    ['token endpoint, 200', await token(client.secret!)],
    ['token endpoint, 401 invalid_client', await token('wrong')],
    ['metadata', await inject('GET', '/.well-known/oauth-authorization-server')],
    ['login page', await inject('GET', '/login')],
    ['authorize error page', await inject('GET', '/oauth/authorize?client_id=unknown&response_type=code')],
    ['token info refused by the guard, 401', await inject('GET', '/oauth/token/info', { authorization: 'Bearer nope' })],
    ['404', await inject('GET', '/nothing-here')],
    ['415', await inject('POST', '/oauth/token', { 'content-type': 'application/json' }, '{}')],
    ['a URL Fastify cannot route (its frameworkErrors)', await inject('GET', '/oauth/%ZZ')],
    ['stylesheet', await inject('GET', '/assets/style.css')],
    ['healthz', await inject('GET', '/healthz')],
  ];
}

describe(`issue 29 item 11: Strict-Transport-Security (RFC 6797) (${backend})`, () => {
  let testDatabase: TestDatabase;
  beforeAll(async () => {
    testDatabase = await createTestDatabase();
  });
  afterAll(() => testDatabase.drop());

  const withServer = async <T>(config: Record<string, unknown>, work: (server: TestServer) => Promise<T>): Promise<T> => {
    const server = await buildTestServer({ config, testDatabase });
    try {
      return await work(server);
    } finally {
      await server.close();
    }
  };
  const metadataHsts = (config: Record<string, unknown>) =>
    withServer(
      config,
      async (server) => (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).headers[HSTS],
    );

  it('issue 29 item 11 (RFC 6797 section 7.1): with an https baseUrl, every response carries Strict-Transport-Security of one year: an OAuth endpoint, a page, an error and a 404', async () => {
    await withServer({ baseUrl: HTTPS }, async (server) => {
      for (const [label, response] of await everyKindOfAnswer(server)) {
        expect(response.statusCode, label).toBeLessThan(500);
        expect(response.headers[HSTS], label).toBe(ONE_YEAR);
      }
    });
  });

  it('issue 29 item 11 (RFC 6797 section 7.2): with an http baseUrl, no response carries Strict-Transport-Security', async () => {
    await withServer({ baseUrl: 'http://127.0.0.1:3000' }, async (server) => {
      for (const [label, response] of await everyKindOfAnswer(server)) expect(response.headers[HSTS], label).toBeUndefined();
    });
  });

  it('issue 29 item 11 (RFC 6797 section 6.1): max-age, includeSubDomains and preload come from config hsts; 0 withdraws the rule, null sends none', async () => {
    expect(await metadataHsts({ baseUrl: HTTPS, hsts: { maxAgeSeconds: 86400 } })).toBe('max-age=86400');
    expect(await metadataHsts({ baseUrl: HTTPS, hsts: { maxAgeSeconds: 63072000, includeSubDomains: true, preload: true } })).toBe(
      'max-age=63072000; includeSubDomains; preload',
    );
    expect(await metadataHsts({ baseUrl: HTTPS, hsts: { includeSubDomains: true } })).toBe(`${ONE_YEAR}; includeSubDomains`);
    // Section 6.1.1: max-age=0 makes a browser forget the host as a Known HSTS Host.
    expect(await metadataHsts({ baseUrl: HTTPS, hsts: { maxAgeSeconds: 0 } })).toBe('max-age=0');
    expect(await metadataHsts({ baseUrl: HTTPS, hsts: { maxAgeSeconds: null } })).toBeUndefined();
    // hstspreload.org refuses a preload directive without includeSubDomains and a year: the boot says so.
    await expect(buildTestServer({ config: { baseUrl: HTTPS, hsts: { preload: true } }, testDatabase })).rejects.toThrow(
      /hsts\.preload: needs hsts\.includeSubDomains true and hsts\.maxAgeSeconds of at least 31536000/,
    );
    await expect(buildTestServer({ config: { hsts: { maxAgeSeconds: -1 } }, testDatabase })).rejects.toThrow(
      /hsts\.maxAgeSeconds: must be >= 0/,
    );
  });

  it('issue 29 item 11 (RFC 6797 section 7.2): /metrics behind METRICS_TOKEN on the public port carries it; the plain-HTTP metrics listener never does', async () => {
    const token = 'm'.repeat(40);
    const server = await buildTestServer({ config: { baseUrl: HTTPS }, env: { METRICS_TOKEN: token }, testDatabase });
    try {
      const authorization = `Bearer ${token}`;
      const scraped = await server.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      expect(scraped.statusCode).toBe(200);
      expect(scraped.headers[HSTS]).toBe(ONE_YEAR);
      expect((await server.app.inject({ method: 'GET', url: '/metrics' })).headers[HSTS]).toBe(ONE_YEAR);
      const listener = await server.app.metricsListener!.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      expect(listener.statusCode).toBe(200);
      expect(listener.headers[HSTS]).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
