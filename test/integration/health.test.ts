import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/loader.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

describe(`GET /healthz and /readyz (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  it('GET /healthz answers 200 while the process runs', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database is reachable and migrated', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('every response forbids framing', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

describe(`GET /readyz on a database with pending migrations (${backend})`, () => {
  let unmigrated: TestDatabase;
  beforeAll(async () => {
    unmigrated = await createTestDatabase({ migrated: false });
  });
  afterAll(() => unmigrated.drop());

  it('answers 503 and names the pending migration', async () => {
    const app = await buildServer({ config: loadConfig({ input: { log: { level: 'silent' } } }), database: unmigrated.database });
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json().detail).toMatch(/pending migrations: \d+_init/);
    await app.close();
  });
});

describe(`GET /readyz with the database gone (${backend})`, () => {
  it('answers 503 "database unreachable" instead of hanging or failing with 500', async () => {
    const db = await createTestDatabase();
    const app = await buildServer({ config: loadConfig({ input: { log: { level: 'silent' } } }), database: db.database });
    await db.drop();
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'unavailable', detail: 'database unreachable' });
    await app.close();
  });
});
