import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/factories.js';
import { scrapeMetrics } from '../helpers/metrics-scrape.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// SPEC 5 rateLimit: failures lock out the failing pair (client id, address), and an address only for client
// ids that name no application; a request with valid credentials is never refused because of other requests'
// failures. Successful calls are unlimited unless perClientPerMinute is set.
describe('rate limits on the API group', () => {
  let server: TestServer;
  afterEach(() => server.close());

  const tokenRequest = (id: string, secret: string, remoteAddress = '127.0.0.1') =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      remoteAddress,
      headers: { ...FORM, authorization: basicAuth(id, secret) },
      payload: form({ grant_type: 'client_credentials' }),
    });

  // The table, each line with the opposite outcome: shipped defaults (maxFailures 10, lockout 300 s).
  it('ten requests with unknown client ids from an IP do not stop a valid client from that IP', async () => {
    server = await buildTestServer();
    const client = await createClient(server.deps);
    expect((await tokenRequest(client.uid, client.secret!, '203.0.113.5')).statusCode).toBe(200);
    for (let i = 0; i < 10; i += 1) expect((await tokenRequest(`unknown-${i}`, 'x', '203.0.113.5')).statusCode).toBe(401);
    expect((await tokenRequest(client.uid, client.secret!, '203.0.113.5')).statusCode).toBe(200);
    // What is refused is the next unknown client id from that address.
    const refused = await tokenRequest('unknown-11', 'x', '203.0.113.5');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('300');
    expect((await tokenRequest('unknown-11', 'x', '203.0.113.6')).statusCode).toBe(401);
    // Meanwhile a known client id's failure from that address is answered alike: the lockout tells no one which ids exist.
    const known = await tokenRequest(client.uid, 'wrong', '203.0.113.5');
    expect([known.statusCode, known.headers['retry-after'], known.json()]).toEqual([429, '300', refused.json()]);
    expect((await tokenRequest(client.uid, client.secret!, '203.0.113.5')).statusCode).toBe(200);
  });

  it('ten wrong secrets naming a valid client from one IP do not stop that client from a third IP', async () => {
    server = await buildTestServer();
    const client = await createClient(server.deps);
    for (let i = 0; i < 10; i += 1) expect((await tokenRequest(client.uid, 'wrong', '198.51.100.2')).statusCode).toBe(401);
    expect((await tokenRequest(client.uid, client.secret!, '198.51.100.3')).statusCode).toBe(200);
    // The failing pair itself is locked, for every endpoint of the group.
    const locked = await tokenRequest(client.uid, 'wrong', '198.51.100.2');
    expect(locked.statusCode).toBe(429);
  });

  it('IPv6 addresses count by their /64: fresh addresses of one subscriber do not dodge a lockout (finding 3)', async () => {
    server = await buildTestServer({ config: { rateLimit: { maxFailures: 3 } } });
    const client = await createClient(server.deps);
    for (const host of ['1', '2', '3']) expect((await tokenRequest(client.uid, 'wrong', `2001:db8:1:2::${host}`)).statusCode).toBe(401);
    expect((await tokenRequest(client.uid, 'wrong', '2001:db8:1:2:ffff::9')).statusCode).toBe(429);
    expect((await tokenRequest(client.uid, client.secret!, '2001:db8:1:3::1')).statusCode).toBe(200);
  });

  it("a proxy's X-Forwarded-For entry with a port counts as its address: a new connection's port does not dodge a lockout", async () => {
    server = await buildTestServer({ config: { rateLimit: { maxFailures: 2 }, trustProxy: true } });
    const client = await createClient(server.deps);
    const viaProxy = (secret: string, forwarded: string) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { ...FORM, authorization: basicAuth(client.uid, secret), 'x-forwarded-for': forwarded },
        payload: form({ grant_type: 'client_credentials' }),
      });
    expect((await viaProxy('wrong', '203.0.113.9:50001')).statusCode).toBe(401);
    expect((await viaProxy('wrong', '203.0.113.9:50002')).statusCode).toBe(401);
    expect((await viaProxy('wrong', '203.0.113.9:50003')).statusCode).toBe(429);
    expect((await viaProxy('wrong', '[2001:db8:5::1]:50004')).statusCode).toBe(401);
    expect((await viaProxy('wrong', '[2001:db8:5::2]:50005')).statusCode).toBe(401);
    expect((await viaProxy(client.secret!, '[2001:db8:5::3]:50006')).statusCode).toBe(429);
    expect((await viaProxy(client.secret!, '203.0.113.10:50007')).statusCode).toBe(200);
  });

  it('counts failed authentications (of applications, of unknown ids, no client id named) and lockouts in /metrics', async () => {
    server = await buildTestServer({ config: { rateLimit: { maxFailures: 2 } } });
    const client = await createClient(server.deps);
    await tokenRequest(client.uid, 'wrong', '192.0.2.1');
    await tokenRequest(client.uid, 'wrong', '192.0.2.1');
    await tokenRequest('nobody', 'x', '192.0.2.1');
    const metrics = await scrapeMetrics(server.app);
    expect(metrics).toContain('oauth_client_authentication_failures_total{client_id="(application)"} 2');
    expect(metrics).not.toContain(client.uid);
    expect(metrics).toContain('oauth_client_authentication_failures_total{client_id="(unknown)"} 1');
    expect(metrics).toContain('oauth_lockouts_total{kind="client"} 1');
  });

  it('locks the failing pair out with 429 and Retry-After after maxFailures failed authentications, even with the right secret', async () => {
    server = await buildTestServer({ config: { rateLimit: { maxFailures: 3, windowSeconds: 60, lockoutSeconds: 120 } } });
    const client = await createClient(server.deps);
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await tokenRequest(client.uid, 'wrong')).statusCode).toBe(401);
    const locked = await tokenRequest(client.uid, client.secret!);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe('120');
    expect(locked.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'Too many failed client authentications. Retry after 120 seconds.',
    });
    const introspect = await server.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
      payload: form({ token: 'x' }),
    });
    expect(introspect.statusCode).toBe(429);
  });

  it('two authentication methods at revoke and introspect answer like the token endpoint: 400 invalid_request', async () => {
    server = await buildTestServer();
    const client = await createClient(server.deps);
    const multiple = {
      error: 'invalid_request',
      error_description: 'The request utilizes more than one mechanism for authenticating the client.',
    };
    for (const url of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
      const payload = form({ grant_type: 'client_credentials', token: 'x', client_id: client.uid, client_secret: client.secret! });
      const both = await server.app.inject({
        method: 'POST',
        url,
        headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
        payload,
      });
      expect([url, both.statusCode, both.json()]).toEqual([url, 400, multiple]);
      const otherId = await server.app.inject({
        method: 'POST',
        url,
        headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
        payload: form({ grant_type: 'client_credentials', token: 'x', client_id: 'someone-else' }),
      });
      expect([url, otherId.statusCode, otherId.json().error]).toEqual([url, 400, 'invalid_request']);
    }
    const bearerAndBody = await server.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: { ...FORM, authorization: 'Bearer some-token' },
      payload: form({ token: 'x', client_id: client.uid, client_secret: client.secret! }),
    });
    expect([bearerAndBody.statusCode, bearerAndBody.json()]).toEqual([400, multiple]);
  });

  it('does not limit successful calls by default', async () => {
    server = await buildTestServer({ config: { rateLimit: { maxFailures: 3 } } });
    const client = await createClient(server.deps);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () => tokenRequest(client.uid, client.secret!).then((r) => r.statusCode)),
    );
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

  it('perClientPerMinute counts a client once it has authenticated: a stranger naming it with a wrong secret spends none of its budget', async () => {
    server = await buildTestServer({ config: { rateLimit: { perClientPerMinute: 3, maxFailures: 50 } } });
    const client = await createClient(server.deps);
    for (let i = 0; i < 20; i += 1) expect((await tokenRequest(client.uid, 'wrong', '198.51.100.7')).statusCode).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await tokenRequest(client.uid, client.secret!, '198.51.100.8')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // One budget for the client at every endpoint where it authenticates, from any address.
    const introspected = await server.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      remoteAddress: '198.51.100.9',
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
      payload: form({ token: 'x' }),
    });
    expect([introspected.statusCode, introspected.json()]).toEqual([
      429,
      {
        error: 'temporarily_unavailable',
        error_description: expect.stringMatching(/^Request limit reached\. Retry after \d+ seconds?\.$/),
      },
    ]);
    // Another client's budget is its own.
    const other = await createClient(server.deps);
    expect((await tokenRequest(other.uid, other.secret!, '198.51.100.8')).statusCode).toBe(200);
  });

  it('turns every limit off with rateLimit.enabled false', async () => {
    server = await buildTestServer({ config: { rateLimit: { enabled: false, maxFailures: 1 } } });
    const client = await createClient(server.deps);
    await tokenRequest(client.uid, 'wrong');
    expect((await tokenRequest(client.uid, client.secret!)).statusCode).toBe(200);
  });
});
