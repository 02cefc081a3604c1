import { afterEach, describe, expect, it } from 'vitest';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 19's limits on self-registration: registration.maxOpenRegistrations (counted in SQL under a lock every
// registration takes, so concurrent registrations on several instances cannot overshoot it) and
// registration.perAddressPerMinute (429 with Retry-After, apart from rateLimit.perClientPerMinute).

const JSON_HEADERS = { 'content-type': 'application/json' };
const CLIENT = { redirect_uris: ['https://rp.example/cb'], token_endpoint_auth_method: 'none' };

describe(`registration limits (${backend})`, () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0).reverse()) await server.close();
  });
  const start = async (registration: object, extra: object = {}, testDatabase?: TestServer['testDatabase']) => {
    const server = await buildTestServer({ config: { registration: { policy: 'open', ...registration }, ...extra }, testDatabase });
    servers.push(server);
    return server;
  };
  const register = (server: TestServer, remoteAddress = '127.0.0.1') =>
    server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload: CLIENT, remoteAddress });
  const dynamicCount = async (server: TestServer) => server.deps.stores.registrations.countLiveClients('dynamic', new Date(0));

  it('maxOpenRegistrations holds under 16 concurrent registrations on two instances of one database', async () => {
    const first = await start({ maxOpenRegistrations: 3, perAddressPerMinute: 0 });
    const second = await start({ maxOpenRegistrations: 3, perAddressPerMinute: 0 }, {}, first.testDatabase);
    const responses = await Promise.all(Array.from({ length: 16 }, (_, i) => register(i % 2 === 0 ? first : second)));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([...Array(3).fill(201), ...Array(13).fill(400)]);
    for (const refused of responses.filter((response) => response.statusCode === 400))
      expect(refused.json()).toEqual({ error: 'invalid_client_metadata', error_description: 'Open registration is full' });
    expect(await dynamicCount(first)).toBe(3);
    // Deleting one makes room for exactly one more.
    const [made] = responses.filter((response) => response.statusCode === 201);
    await first.deps.stores.applicationAdmin.delete((await first.deps.stores.applications.findByUid(made!.json().client_id))!.id);
    expect((await register(second)).statusCode).toBe(201);
    expect((await register(first)).statusCode).toBe(400);
  });

  it('only self-registered clients count against maxOpenRegistrations, not those an admin made', async () => {
    const server = await start({ maxOpenRegistrations: 1, perAddressPerMinute: 0 });
    await server.deps.stores.applicationAdmin.create({
      uid: 'admin-made',
      name: 'Admin app',
      secret: null,
      redirectUris: ['https://rp.example/cb'],
      scopes: [],
      confidential: false,
    });
    expect((await register(server)).statusCode).toBe(201);
    expect((await register(server)).statusCode).toBe(400);
  });

  it('perAddressPerMinute defaults to 10: the eleventh registration from an address in a minute is 429 with Retry-After', async () => {
    const server = await start({});
    for (let i = 0; i < 10; i += 1) expect((await register(server, '198.51.100.7')).statusCode).toBe(201);
    const refused = await register(server, '198.51.100.7');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: `Too many registrations from this address. Retry after ${refused.headers['retry-after']} seconds.`,
    });
    expect((await register(server, '198.51.100.8')).statusCode).toBe(201);
    // Refused requests store nothing.
    expect(await dynamicCount(server)).toBe(11);
  });

  it('counts IPv6 addresses by their /64, and refused or invalid registrations count too', async () => {
    const server = await start({ perAddressPerMinute: 2 });
    const invalid = await server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: JSON_HEADERS,
      payload: { redirect_uris: ['javascript:alert(1)'] },
      remoteAddress: '2001:db8:5:6::1',
    });
    expect(invalid.statusCode).toBe(400);
    expect((await register(server, '2001:db8:5:6::2')).statusCode).toBe(201);
    expect((await register(server, '2001:db8:5:6:ffff::3')).statusCode).toBe(429);
    expect((await register(server, '2001:db8:5:7::1')).statusCode).toBe(201);
  });

  it('is independent of rateLimit.perClientPerMinute, and off with 0 or with rateLimit.enabled false', async () => {
    const generous = await start({ perAddressPerMinute: 2 }, { rateLimit: { perClientPerMinute: 100 } });
    expect((await register(generous)).statusCode).toBe(201);
    expect((await register(generous)).statusCode).toBe(201);
    expect((await register(generous)).statusCode).toBe(429);
    for (const [registration, extra] of [
      [{ perAddressPerMinute: 0 }, {}],
      [{ perAddressPerMinute: 2 }, { rateLimit: { enabled: false } }],
    ] as const) {
      const server = await start(registration, extra);
      for (let i = 0; i < 4; i += 1) expect((await register(server)).statusCode).toBe(201);
    }
  });

  it('the management endpoints are not registrations: reading one registration often is not limited by it', async () => {
    const server = await start({ perAddressPerMinute: 1 });
    const client = (await register(server)).json();
    // Each read answers the next registration access token (RFC 7592 section 3, issue 29 item 6).
    let token = client.registration_access_token;
    for (let i = 0; i < 3; i += 1) {
      const read = await server.app.inject({
        method: 'GET',
        url: `/oauth/register/${client.client_id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(read.statusCode).toBe(200);
      token = read.json().registration_access_token;
    }
  });
});
