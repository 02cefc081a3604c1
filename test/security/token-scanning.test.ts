import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, bearer, introspectRequest, tokenInfoRequest } from '../helpers/oauth-requests.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 9700 section 4.10 / RFC 7662 section 4 (token scanning): guessing tokens at the introspection endpoint
// learns nothing (RFC 7662 section 2.2: an unknown token is exactly {"active": false}) and failed client
// authentication locks the scanner out (SPEC 5 rateLimit, defaults: 10 failures, then 429).

const guesses = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    [
      () => randomBytes(32).toString('base64url'),
      () => randomBytes(16).toString('hex'),
      () => `${randomBytes(8).toString('base64url')}' OR '1'='1`,
      () => randomBytes(1 + (i % 60)).toString('base64'),
    ][i % 4]!(),
  );

/** Sends the requests eight at a time (a scanner's burst, without starving the test database). */
async function burst<T>(count: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += 8) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(8, count - start) }, (_, k) => send(start + k)))));
  }
  return results;
}

describe(`RFC 7662 section 4, RFC 6749 section 10.10: token scanning at /oauth/introspect (${backend})`, () => {
  let db: TestDatabase;
  let defaults: TestServer;
  let perClient: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    defaults = await buildTestServer({ testDatabase: db });
    perClient = await buildTestServer({ testDatabase: db, config: { rateLimit: { perClientPerMinute: 100 } } });
    client = await createClient(defaults.deps);
  });
  afterAll(async () => {
    await defaults.close();
    await perClient.close();
    await db.drop();
  });

  it('RFC 7662 section 2.2: a burst of 200 random tokens from an authenticated client is always exactly {"active":false}', async () => {
    const tokens = guesses(200);
    const responses = await burst(200, (i) => introspectRequest(defaults.app, { token: tokens[i]! }, basic(client.uid, client.secret!)));
    expect(new Set(responses.map((response) => `${response.statusCode} ${response.body}`))).toEqual(new Set(['200 {"active":false}']));
  });

  it('RFC 6750 section 3.1: random Bearer credentials at introspection and token info are 401 invalid_token, never active', async () => {
    const tokens = guesses(40);
    const introspected = await burst(40, (i) => introspectRequest(defaults.app, { token: tokens[i]! }, bearer(tokens[(i + 1) % 40]!)));
    const info = await burst(40, (i) => tokenInfoRequest(defaults.app, bearer(tokens[i]!)));
    for (const response of [...introspected, ...info]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: 'invalid_token' });
    }
  });

  it('SPEC 5 rateLimit: a burst of failed client authentications from one address gets 429 with Retry-After, while a valid client there still gets through', async () => {
    const remoteAddress = '203.0.113.7';
    const statuses = await burst(30, (i) =>
      defaults.app
        .inject({
          method: 'POST',
          url: '/oauth/introspect',
          remoteAddress,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(`scanner-${i}`, 'guess') },
          payload: 'token=x',
        })
        .then((response) => response.statusCode),
    );
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(401));
    expect(statuses.slice(-10)).toEqual(Array(10).fill(429));
    const refused = await defaults.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic('scanner-next', 'guess') },
      payload: 'token=x',
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The scanner's failures are not the valid client's: it is answered, from that address and any other.
    const valid = await defaults.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(client.uid, client.secret!) },
      payload: 'token=x',
    });
    expect(valid.statusCode).toBe(200);
    expect((await introspectRequest(defaults.app, { token: 'x' }, basic(client.uid, client.secret!))).statusCode).toBe(200);
  });

  it('rateLimit.perClientPerMinute: a scanning client is cut off with 429 after its budget, and no answer is ever active', async () => {
    const live = await issueToken(perClient.deps, { application: null });
    const tokens = guesses(200);
    tokens[150] = live.accessToken;
    const responses = await burst(200, (i) => introspectRequest(perClient.app, { token: tokens[i]! }, basic(client.uid, client.secret!)));
    const statuses = responses.map((response) => response.statusCode);
    // At most the budget passes (a concurrent burst may see the limit a few requests early); the rest is 429.
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(100);
    expect(statuses.slice(0, 88)).toEqual(Array(88).fill(200));
    expect(statuses.slice(104)).toEqual(Array(96).fill(429));
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    for (const response of responses.filter((r) => r.statusCode === 200)) expect(response.json()).toEqual({ active: false });
  });
});
