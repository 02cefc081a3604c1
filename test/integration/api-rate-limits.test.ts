import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/factories.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// SPEC 5 rateLimit: failures back off and lock out per client and per IP; successful calls are unlimited
// unless perClientPerMinute is set.
describe('rate limits on the API group', () => {
  let server: TestServer;
  afterEach(() => server.close());

  const tokenRequest = (id: string, secret: string) =>
    server.app.inject({ method: 'POST', url: '/oauth/token', headers: { ...FORM, authorization: basicAuth(id, secret) }, payload: form({ grant_type: 'client_credentials' }) });

  it('locks a client out with 429 and Retry-After after maxFailures failed authentications, even with the right secret', async () => {
    server = await buildTestServer({ config: { rateLimit: { maxFailures: 3, windowSeconds: 60, lockoutSeconds: 120 } } });
    const client = await createClient(server.deps);
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await tokenRequest(client.uid, 'wrong')).statusCode).toBe(401);
    const locked = await tokenRequest(client.uid, client.secret!);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe('120');
    expect(locked.json()).toEqual({ error: 'temporarily_unavailable', error_description: 'Too many failed client authentications. Retry after 120 seconds.' });
    const introspect = await server.app.inject({ method: 'POST', url: '/oauth/introspect', headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) }, payload: form({ token: 'x' }) });
    expect(introspect.statusCode).toBe(429);
  });

  it('does not limit successful calls by default', async () => {
    server = await buildTestServer({ config: { rateLimit: { maxFailures: 3 } } });
    const client = await createClient(server.deps);
    const statuses = await Promise.all(Array.from({ length: 30 }, () => tokenRequest(client.uid, client.secret!).then((r) => r.statusCode)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('caps each client at perClientPerMinute when configured', async () => {
    server = await buildTestServer({ config: { rateLimit: { perClientPerMinute: 5 } } });
    const client = await createClient(server.deps);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) statuses.push((await tokenRequest(client.uid, client.secret!)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const limited = await tokenRequest(client.uid, client.secret!);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().error).toBe('temporarily_unavailable');
  });

  it('turns every limit off with rateLimit.enabled false', async () => {
    server = await buildTestServer({ config: { rateLimit: { enabled: false, maxFailures: 1 } } });
    const client = await createClient(server.deps);
    await tokenRequest(client.uid, 'wrong');
    expect((await tokenRequest(client.uid, client.secret!)).statusCode).toBe(200);
  });
});
