import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard, type GuardToken, type ServiceGuardOptions } from '@oauth-service/guard';
import { createClient, issueToken, storeAccessToken, type TestClient } from '../helpers/factories.js';
import { expectPublicDocumentPreflight } from '../helpers/oauth-requests.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { bearer } from './guard-helpers.js';

// RFC 9728 from the guard: an API with `resource` serves its Protected Resource Metadata, names it in every
// challenge, and refuses tokens whose audience (RFC 8707) is another resource.
const RESOURCE = 'https://notes.example.com/mcp';
const METADATA_URL = 'https://notes.example.com/.well-known/oauth-protected-resource/mcp';

async function api(options: ServiceGuardOptions): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(serviceGuard, options);
  app.get('/mcp', { preHandler: app.serviceAuthorize() }, async () => ({ ok: true }));
  app.get('/mcp/write', { preHandler: app.serviceAuthorize('write') }, async () => ({ ok: true }));
  return app;
}

describe('guard: RFC 9728 Protected Resource Metadata against a running service (remote mode)', () => {
  let server: TestServer;
  let client: TestClient;
  let address: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    server = await buildTestServer();
    address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    client = await createClient(server.deps);
    app = await api({
      mode: 'remote',
      introspectionUrl: `${address}/oauth/introspect`,
      clientId: client.uid,
      clientSecret: client.secret!,
      resource: RESOURCE,
      scopesSupported: ['read', 'write'],
      resourceName: 'Notes MCP server',
      resourceDocumentation: 'https://notes.example.com/docs',
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('section 3.1: serves the document at the path-suffixed well-known URL, as application/json (section 3.2)', async () => {
    const response = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['cache-control']).toBe('public, max-age=3600');
    // Section 2, with the authorization server defaulting to the introspection URL's origin (its issuer).
    expect(response.json()).toEqual({
      resource: RESOURCE,
      authorization_servers: [address],
      scopes_supported: ['read', 'write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Notes MCP server',
      resource_documentation: 'https://notes.example.com/docs',
    });
  });

  it("the document's CORS preflight is allowed from every origin, with the headers asked for (a browser MCP client's)", async () => {
    for (const url of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])
      await expectPublicDocumentPreflight(app, url);
  });

  it('section 3.3: the resource in the document is identical to the identifier the URL was made from; the root URL serves it too', async () => {
    const root = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
    expect(root.statusCode).toBe(200);
    expect(root.json().resource).toBe(RESOURCE);
  });

  it('section 5.1: a 401 without a token names the metadata URL (what the MCP SDK follows)', async () => {
    const response = await app.inject({ method: 'GET', url: '/mcp' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="oauth-service", resource_metadata="${METADATA_URL}"`);
  });

  it("a 401 also names the route's scopes (RFC 6750 section 3), which MCP clients ask for before scopes_supported", async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/mcp/write' });
    expect(anonymous.headers['www-authenticate']).toBe(`Bearer realm="oauth-service", scope="write", resource_metadata="${METADATA_URL}"`);
    const unknown = await app.inject({ method: 'GET', url: '/mcp/write', headers: bearer('unknown-token') });
    expect(unknown.headers['www-authenticate']).toContain(`scope="write", resource_metadata="${METADATA_URL}"`);
  });

  it('section 5.1: the invalid_token and insufficient_scope challenges name it too', async () => {
    const invalid = await app.inject({ method: 'GET', url: '/mcp', headers: bearer('unknown-token') });
    expect(invalid.headers['www-authenticate']).toBe(
      `Bearer realm="oauth-service", error="invalid_token", error_description="The access token is invalid", resource_metadata="${METADATA_URL}"`,
    );
    const reader = (await issueToken(server.deps, { application: client.application, scopes: ['read'] })).accessToken;
    const forbidden = await app.inject({ method: 'GET', url: '/mcp/write', headers: bearer(reader) });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['www-authenticate']).toContain(`scope="write", resource_metadata="${METADATA_URL}"`);
  });

  it('accepts a token issued without a resource (no audience) by default, as before', async () => {
    const token = (await issueToken(server.deps, { application: client.application, scopes: ['read'] })).accessToken;
    expect((await app.inject({ method: 'GET', url: '/mcp', headers: bearer(token) })).statusCode).toBe(200);
  });

  // RFC 8707 + RFC 7662: the service answers the stored audience as `aud`; the guard compares it with `resource`.
  it('refuses a token the service holds for another resource (introspection aud), accepts one for this resource', async () => {
    const stored = async (audience: string[]) => {
      const token = randomBytes(32).toString('base64url');
      await storeAccessToken(server.deps, client.application, token, audience);
      return token;
    };
    expect((await app.inject({ method: 'GET', url: '/mcp', headers: bearer(await stored([RESOURCE])) })).statusCode).toBe(200);
    const other = await app.inject({ method: 'GET', url: '/mcp', headers: bearer(await stored(['https://other.example.com/api'])) });
    expect(other.statusCode).toBe(401);
    expect(other.json().error_description).toBe('The access token is not meant for this resource');
    const both = await stored(['https://other.example.com/api', RESOURCE]);
    expect((await app.inject({ method: 'GET', url: '/mcp', headers: bearer(both) })).statusCode).toBe(200);
  });
});

describe('guard: no resource configured', () => {
  it('serves no metadata and keeps the challenge as it was', async () => {
    const app = await api({ introspect: async () => null });
    expect((await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/mcp' })).headers['www-authenticate']).toBe('Bearer realm="oauth-service"');
    await app.close();
  });
});

describe('guard: the resource identifier is checked at registration', () => {
  it.each([
    ['a relative URL', '/mcp'],
    ['plain http to a non-loopback host', 'http://notes.example.com/mcp'],
    ['a fragment', 'https://notes.example.com/mcp#x'],
    ['a query', 'https://notes.example.com/mcp?tenant=1'],
    // Its metadata URL would never be answered (the guard's audit): Fastify matches the decoded path, ":" is a pattern.
    ['a percent-encoded path', 'https://notes.example.com/a%20b'],
    ['a colon in the path', 'https://notes.example.com/v1:beta'],
  ])('refuses %s', async (_name, resource) => {
    await expect(api({ introspect: async () => null, resource, authorizationServers: ['https://auth.example.com'] })).rejects.toThrow(
      /resource/,
    );
  });

  it('serves a resource without a path at the bare well-known URL, http for loopback', async () => {
    const app = await api({
      introspect: async () => null,
      resource: 'http://127.0.0.1:4000',
      authorizationServers: ['http://127.0.0.1:3000'],
    });
    const response = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
    expect(response.json()).toEqual({
      resource: 'http://127.0.0.1:4000',
      authorization_servers: ['http://127.0.0.1:3000'],
      bearer_methods_supported: ['header'],
    });
    expect((await app.inject({ method: 'GET', url: '/mcp' })).headers['www-authenticate']).toContain(
      'resource_metadata="http://127.0.0.1:4000/.well-known/oauth-protected-resource"',
    );
    await app.close();
  });
});

describe('guard: the audience check (RFC 8707)', () => {
  const token = (audience?: string[]): GuardToken => ({
    active: true,
    scopes: ['read'],
    clientId: 'c',
    resourceOwnerId: 1,
    expiresAt: null,
    ...(audience && { audience }),
  });
  const tokens: Record<string, GuardToken> = {
    mine: token([RESOURCE]),
    shared: token(['https://other.example.com', RESOURCE]),
    other: token(['https://other.example.com']),
    none: token(),
    empty: token([]),
  };
  const local = (extra: { acceptTokensWithoutAudience?: boolean } = {}) =>
    api({
      introspect: async (value) => tokens[value] ?? null,
      resource: RESOURCE,
      authorizationServers: ['https://auth.example.com'],
      ...extra,
    });

  it('accepts a token whose audience includes the resource, refuses one meant for another resource', async () => {
    const app = await local();
    expect((await app.inject({ url: '/mcp', headers: bearer('mine') })).statusCode).toBe(200);
    expect((await app.inject({ url: '/mcp', headers: bearer('shared') })).statusCode).toBe(200);
    const refused = await app.inject({ url: '/mcp', headers: bearer('other') });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is not meant for this resource' });
    expect(refused.headers['www-authenticate']).toContain(`resource_metadata="${METADATA_URL}"`);
    await app.close();
  });

  it('accepts a token without an audience by default; refuses it with acceptTokensWithoutAudience false', async () => {
    const lenient = await local();
    expect((await lenient.inject({ url: '/mcp', headers: bearer('none') })).statusCode).toBe(200);
    expect((await lenient.inject({ url: '/mcp', headers: bearer('empty') })).statusCode).toBe(200);
    await lenient.close();
    const strict = await local({ acceptTokensWithoutAudience: false });
    expect((await strict.inject({ url: '/mcp', headers: bearer('none') })).statusCode).toBe(401);
    expect((await strict.inject({ url: '/mcp', headers: bearer('mine') })).statusCode).toBe(200);
    await strict.close();
  });

  describe('in remote mode, from the introspection response (aud a string or an array, RFC 7662 section 2.2)', () => {
    let introspection: Server;
    let url: string;
    beforeAll(async () => {
      const answers: Record<string, unknown> = {
        mine: RESOURCE,
        shared: ['https://other.example.com', RESOURCE],
        other: 'https://other.example.com',
      };
      introspection = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          const aud = answers[new URLSearchParams(body).get('token') ?? ''];
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ active: true, token_type: 'Bearer', scope: 'read', client_id: 'c', ...(aud !== undefined && { aud }) }),
          );
        });
      });
      await new Promise<void>((resolve) => introspection.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(introspection.address() as AddressInfo).port}/oauth/introspect`;
    });
    afterAll(() => new Promise((resolve) => introspection.close(resolve)));

    it.each([
      ['mine', 200],
      ['shared', 200],
      ['other', 401],
      ['none', 200],
    ])('token %s: %i', async (value, status) => {
      const app = await api({ mode: 'remote', introspectionUrl: url, clientId: 'api', clientSecret: 's', resource: RESOURCE });
      expect((await app.inject({ url: '/mcp', headers: bearer(value) })).statusCode).toBe(status);
      await app.close();
    });
  });
});
