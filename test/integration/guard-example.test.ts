import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProtectedApi } from '../../examples/protected-api.js';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { freePort } from '../../scripts/lib/ports.js';
import { ROOT, stopService } from '../helpers/processes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { bearer } from './guard-helpers.js';

// examples/protected-api.ts as deployed: its own client, allowed to introspect every token, and tokens issued to
// another client on behalf of a user.
describe('examples/protected-api.ts against a running service', () => {
  let database: TestDatabase;
  let server: TestServer;
  let api: FastifyInstance;
  let thirdParty: TestClient;
  let userId: number;
  let userSubject: string;
  let environment: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Client ids are generated, and the introspection policy that names the API's client is config: create the
    // clients first, then start the service with that config on the same database.
    const setup = await buildTestServer({ testDatabase: database });
    const resourceServer = await createClient(setup.deps, { name: 'Notes API' });
    thirdParty = await createClient(setup.deps, { name: 'Notes app' });
    ({ id: userId, subject: userSubject } = await createUser(setup.deps));
    await setup.close();
    server = await buildTestServer({
      testDatabase: database,
      config: { introspection: { allow: [{ rule: 'clients', clientIds: [resourceServer.uid] }] } },
    });
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    environment = {
      OAUTH_INTROSPECTION_URL: `${address}/oauth/introspect`,
      OAUTH_CLIENT_ID: resourceServer.uid,
      OAUTH_CLIENT_SECRET: resourceServer.secret!,
    };
    api = await buildProtectedApi({
      introspectionUrl: environment.OAUTH_INTROSPECTION_URL!,
      clientId: environment.OAUTH_CLIENT_ID!,
      clientSecret: environment.OAUTH_CLIENT_SECRET!,
      logLevel: 'silent',
    });
  });
  afterAll(async () => {
    await api?.close();
    await server?.close();
    await database?.drop();
  });

  const token = async (scopes: string[]) =>
    (
      await issueToken(server.deps, {
        application: thirdParty.application,
        resourceOwnerId: userId,
        scopes,
        grantType: 'authorization_code',
      })
    ).accessToken;

  it('serves the public route without a token', async () => {
    expect((await api.inject({ method: 'GET', url: '/public' })).statusCode).toBe(200);
  });

  it('answers 401 on a protected route without a token or with an unknown one', async () => {
    const response = await api.inject({ method: 'GET', url: '/me' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="oauth-service"');
    expect((await api.inject({ method: 'GET', url: '/me', headers: bearer('nope') })).statusCode).toBe(401);
  });

  it("answers 200 with a valid token of another client, knowing its resource owner through sub, the user's OpenID subject", async () => {
    const response = await api.inject({ method: 'GET', url: '/me', headers: bearer(await token(['read'])) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ clientId: thirdParty.uid, scopes: ['read'], resourceOwnerId: userSubject });
  });

  it('answers 403 on the write route without scope write, 201 with it', async () => {
    const forbidden = await api.inject({ method: 'POST', url: '/notes', headers: bearer(await token(['read'])) });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error).toBe('insufficient_scope');
    expect((await api.inject({ method: 'POST', url: '/notes', headers: bearer(await token(['write'])) })).statusCode).toBe(201);
  });

  it('runs as a script configured from OAUTH_INTROSPECTION_URL, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET and PORT', async () => {
    const port = await freePort();
    const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'examples/protected-api.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...environment, PORT: String(port), LOG_LEVEL: 'warn' },
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const base = `http://127.0.0.1:${port}`;
      let publicStatus = 0;
      for (let attempt = 0; attempt < 100 && publicStatus !== 200 && child.exitCode === null; attempt += 1) {
        publicStatus = await fetch(`${base}/public`).then(
          (response) => response.status,
          () => 0,
        );
        if (publicStatus !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(publicStatus, output).toBe(200);
      expect((await fetch(`${base}/me`)).status).toBe(401);
      expect((await fetch(`${base}/me`, { headers: bearer(await token(['read'])) })).status).toBe(200);
      expect((await fetch(`${base}/notes`, { method: 'POST', headers: bearer(await token(['read'])) })).status).toBe(403);
    } finally {
      await stopService(child);
    }
  });
});
