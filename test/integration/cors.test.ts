import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type ConfigError } from '../../src/config/loader.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { basic, expectPublicDocumentPreflight, introspectRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// CORS for browser-based applications (http/plugins/cors.ts): what each answer tells a browser. The pages' behaviour
// in Chromium is test/browser/cors-browser-app.test.ts.

const APP = 'https://spa.example.com';

describe(`CORS headers (${backend})`, () => {
  let server: TestServer;
  let anyOrigin: TestServer;
  let client: TestClient;
  beforeAll(async () => {
    server = await buildTestServer({ config: { cors: { allowedOrigins: [APP] } } });
    anyOrigin = await buildTestServer({ testDatabase: server.testDatabase, config: { cors: { allowedOrigins: ['*'] } } });
    client = await createClient(server.deps);
  });
  afterAll(async () => {
    await anyOrigin.close();
    await server.close();
  });

  const preflight = (target: TestServer, url: string, origin: string) =>
    target.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST' } });
  const clientCredentials = (target: TestServer, origin: string) =>
    tokenRequest(target.app, { grant_type: 'client_credentials' }, { ...basic(client.uid, client.secret!), origin });

  it('a preflight from a listed origin is allowed the method and the headers a page sends; another gets no allowance', async () => {
    const allowed = await preflight(server, '/oauth/token', APP);
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization, content-type, dpop',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    expect(allowed.headers).not.toHaveProperty('access-control-allow-credentials');
    const other = await preflight(server, '/oauth/revoke', 'https://evil.example');
    expect(other.statusCode).toBe(204);
    expect(other.headers).not.toHaveProperty('access-control-allow-origin');
    expect(other.headers).not.toHaveProperty('access-control-allow-methods');
  });

  it("an answer names a listed origin, with the headers a page must read (a 401's challenge too); not another's", async () => {
    const answered = await clientCredentials(server, APP);
    expect(answered.statusCode).toBe(200);
    expect(answered.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': 'www-authenticate, dpop-nonce, retry-after',
    });
    const refused = await tokenRequest(server.app, { grant_type: 'client_credentials' }, { ...basic(client.uid, 'wrong'), origin: APP });
    expect([refused.statusCode, refused.headers['access-control-allow-origin']]).toEqual([401, APP]);
    // Refused before any handler ran (the API group takes forms only): still readable by the page.
    const notAForm = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { origin: APP, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect([notAForm.statusCode, notAForm.headers['access-control-allow-origin']]).toEqual([415, APP]);
    expect((await clientCredentials(server, 'https://evil.example')).headers).not.toHaveProperty('access-control-allow-origin');
    expect((await clientCredentials(anyOrigin, 'https://any.example')).headers['access-control-allow-origin']).toBe('https://any.example');
  });

  it('with no origin listed, nothing is allowed and OPTIONS stays unrouted (404), as without CORS', async () => {
    const none = await buildTestServer({ testDatabase: server.testDatabase });
    try {
      expect((await preflight(none, '/oauth/token', APP)).statusCode).toBe(404);
      expect((await clientCredentials(none, APP)).headers).not.toHaveProperty('access-control-allow-origin');
    } finally {
      await none.close();
    }
  });

  it('discovery is readable from every origin; introspection (resource servers, not pages) from none', async () => {
    const discovery = await server.app.inject({
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      headers: { origin: 'https://evil.example' },
    });
    expect(discovery.headers['access-control-allow-origin']).toBe('*');
    const token = (await clientCredentials(server, APP)).json<{ access_token: string }>().access_token;
    const introspected = await introspectRequest(server.app, { token }, { ...basic(client.uid, client.secret!), origin: APP });
    expect(introspected.statusCode).toBe(200);
    expect(introspected.headers).not.toHaveProperty('access-control-allow-origin');
  });

  it("discovery's preflight is allowed from every origin with the headers asked for (MCP-Protocol-Version), with or without listed origins", async () => {
    const none = await buildTestServer({ testDatabase: server.testDatabase });
    const openid = await openIdServer({ testDatabase: server.testDatabase });
    try {
      for (const [target, url] of [
        [server, '/.well-known/oauth-authorization-server'],
        [none, '/.well-known/oauth-authorization-server'],
        [openid, '/.well-known/openid-configuration'],
        [openid, '/oauth/jwks'],
      ] as const)
        await expectPublicDocumentPreflight(target.app, url);
      // Not a list of header names: nothing is echoed.
      const odd = await server.app.inject({
        method: 'OPTIONS',
        url: '/.well-known/oauth-authorization-server',
        headers: { origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-a, x b' },
      });
      expect([odd.statusCode, odd.headers['access-control-allow-headers']]).toEqual([204, undefined]);
    } finally {
      await openid.close();
      await none.close();
    }
  });

  it('cors.allowedOrigins takes origins and "*" only: a path or a trailing slash is a config problem naming the origin meant', () => {
    let error: unknown;
    try {
      loadConfig({ input: { cors: { allowedOrigins: ['*', 'https://spa.example.com/', 'spa.example.com'] } } });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems).toEqual([
      'cors.allowedOrigins[1]: "https://spa.example.com/" is not an origin: scheme://host[:port], no path, no trailing slash (did you mean https://spa.example.com?)',
      'cors.allowedOrigins[2]: "spa.example.com" is not an origin: scheme://host[:port], no path, no trailing slash',
    ]);
  });
});
