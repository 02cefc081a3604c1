import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/loader.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';
import { ADMIN, ADMIN_PASSWORD, adminBasic, buildAdminServer } from './applications-support.js';

const DISABLED = 'The admin UI is disabled: set ADMIN_PASSWORD or admin.passwordHash';

// One database for the servers of this file (each configured differently); none of them writes to it.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe(`/oauth/applications admin authentication (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer({ rateLimit: { maxFailures: 3, windowSeconds: 60, lockoutSeconds: 120 } }, database);
  });
  afterAll(() => server.close());

  it('no credentials: 401 with a Basic challenge for the admin realm', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/oauth/applications' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="oauth-service admin"');
    expect(response.headers['content-type']).toContain('text/html');
  });

  it('the right password and a wrong user name, or a wrong password: 401 (HTML and JSON)', async () => {
    for (const authorization of [adminBasic('root', ADMIN_PASSWORD), adminBasic('admin', 'wrong')]) {
      const page = await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: { authorization } });
      expect(page.statusCode).toBe(401);
      expect(page.headers['www-authenticate']).toBe('Basic realm="oauth-service admin"');
      expect(page.body).toContain('Wrong admin user name or password.');
      server.clock.advance(61); // stay under the lockout: this test is about the 401
    }
    const json = await server.app.inject({
      method: 'GET',
      url: '/oauth/applications',
      headers: { authorization: adminBasic('admin', 'wrong'), accept: 'application/json' },
    });
    expect(json.statusCode).toBe(401);
    expect(json.json()).toEqual({ error: 'unauthorized', error_description: 'Wrong admin user name or password.' });
    server.clock.advance(61);
  });

  it('a malformed Authorization header is 401, never 500', async () => {
    for (const authorization of ['Basic', 'Basic !!!', 'Bearer abc', `Basic ${Buffer.from('no-colon').toString('base64')}`]) {
      const response = await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: { authorization } });
      expect(response.statusCode, authorization).toBe(401);
    }
  });

  it('repeated failures from one IP lock it out with 429 and Retry-After, even for the right password, until the lockout ends', async () => {
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const response = await server.app.inject({
        method: 'GET',
        url: '/oauth/applications',
        headers: { authorization: adminBasic('admin', `guess-${attempt}`) },
      });
      expect(response.statusCode).toBe(401);
    }
    const locked = await server.app.inject({
      method: 'GET',
      url: '/oauth/applications',
      headers: { ...ADMIN, accept: 'application/json' },
    });
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe('120');
    expect(locked.json().error).toBe('too_many_requests');
    const page = await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: ADMIN });
    expect(page.statusCode).toBe(429);
    expect(page.body).toContain('Too many failed admin sign-in attempts.');

    // Another IP is not locked out.
    const elsewhere = await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: ADMIN, remoteAddress: '192.0.2.7' });
    expect(elsewhere.statusCode).toBe(200);

    server.clock.advance(121);
    expect((await server.app.inject({ method: 'GET', url: '/oauth/applications', headers: ADMIN })).statusCode).toBe(200);
  });

  it('the lockout holds for credentials verified just before it too (remembered for a minute): a guesser learns nothing', async () => {
    const remoteAddress = '192.0.2.44';
    const get = (authorization: string | undefined) =>
      server.app.inject({ method: 'GET', url: '/oauth/applications', headers: authorization ? { authorization } : {}, remoteAddress });
    expect((await get(ADMIN.authorization)).statusCode).toBe(200);
    for (let attempt = 1; attempt <= 3; attempt += 1) expect((await get(adminBasic('admin', `guess-${attempt}`))).statusCode).toBe(401);
    expect((await get(ADMIN.authorization)).statusCode).toBe(429);
    server.clock.advance(121);
    expect((await get(ADMIN.authorization)).statusCode).toBe(200);
  });

  it('30 wrong admin passwords sent at once from one IP get at most maxFailures checks (finding 2)', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        server.app.inject({
          method: 'GET',
          url: '/oauth/applications',
          remoteAddress: '198.51.100.40',
          headers: { authorization: adminBasic('admin', `burst-${i}`), accept: 'application/json' },
        }),
      ),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(27);
    server.clock.advance(121);
  });

  it('the admin check stays inside /oauth/applications', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const token = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: form({ grant_type: 'client_credentials' }),
    });
    expect(token.statusCode).toBe(401);
    expect(token.json().error).toBe('invalid_client');
    expect(token.headers['www-authenticate'] ?? '').not.toContain('admin');
  });
});

describe(`/oauth/applications with no admin password configured (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ testDatabase: database });
  });
  afterAll(() => server.close());

  it('every admin page and API call is 403 with a message that says how to open it', async () => {
    for (const url of ['/oauth/applications', '/oauth/applications/new', '/oauth/applications/1', '/oauth/applications/1/edit']) {
      const page = await server.app.inject({ method: 'GET', url, headers: ADMIN });
      expect(page.statusCode, url).toBe(403);
      expect(page.body).toContain(DISABLED);
    }
    const json = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: { ...ADMIN, accept: 'application/json', 'content-type': 'application/json' },
      payload: { name: 'x' },
    });
    expect(json.statusCode).toBe(403);
    expect(json.json()).toEqual({ error: 'forbidden', error_description: DISABLED });
    expect(await server.deps.stores.applicationAdmin.list()).toEqual([]);
  });
});

describe(`/oauth/applications with ADMIN_PASSWORD in the environment (${backend})`, () => {
  let app: Awaited<ReturnType<typeof buildServer>>;
  beforeAll(async () => {
    const config = loadConfig({
      input: { log: { level: 'silent' }, sessionSecret: 'b'.repeat(40) },
      env: { ADMIN_PASSWORD: 'plain but long enough' },
    });
    app = await buildServer({ config, database: database.database });
  });
  afterAll(() => app.close());

  it('the plain password opens the admin UI; another one does not', async () => {
    const ok = await app.inject({
      method: 'GET',
      url: '/oauth/applications',
      headers: { authorization: adminBasic('admin', 'plain but long enough') },
    });
    expect(ok.statusCode).toBe(200);
    const wrong = await app.inject({
      method: 'GET',
      url: '/oauth/applications',
      headers: { authorization: adminBasic('admin', 'plain but long enough!') },
    });
    expect(wrong.statusCode).toBe(401);
  });
});

describe(`/oauth/applications with an authenticateAdmin extension hook (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({
      testDatabase: database,
      extensions: { authenticateAdmin: async (request) => request.headers['x-admin-token'] === 'let-me-in' },
    });
  });
  afterAll(() => server.close());

  it('the hook replaces the password check', async () => {
    const allowed = await server.app.inject({
      method: 'GET',
      url: '/oauth/applications',
      headers: { 'x-admin-token': 'let-me-in', accept: 'application/json' },
    });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json()).toEqual([]);
  });

  it('a request the hook refuses gets 403, whatever Basic credentials it carries', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/oauth/applications',
      headers: { ...ADMIN, accept: 'application/json' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'forbidden', error_description: 'The admin authenticator refused this request.' });
  });

  it('only true lets a request in: a decision object, a string or a number the hook returns is a refusal (docs/extending.md)', async () => {
    for (const answer of [{ allowed: false }, 'false', 1]) {
      const hooked = await buildTestServer({
        testDatabase: database,
        extensions: { authenticateAdmin: async () => answer as unknown as boolean },
      });
      try {
        const response = await hooked.app.inject({ method: 'GET', url: '/oauth/applications', headers: { accept: 'application/json' } });
        expect({ answer, status: response.statusCode }).toEqual({ answer, status: 403 });
      } finally {
        await hooked.close();
      }
    }
  });
});
