import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, jwksOf, privateKeyJwtClient, type ClientKey } from '../helpers/client-assertions.js';
import { createClient } from '../helpers/factories.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { recordingFetch, type RecordedRequest } from '../helpers/mcp-client.js';
import { protectedMcpServer, type ProtectedMcpServer } from '../helpers/mcp-server.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 34 acceptance: the MCP SDK's machine-to-machine providers (MCP's OAuth client credentials extension), each
// against an MCP server behind the guard, through this service on a real socket: the SDK discovers the service from
// the MCP server's 401, gets a client_credentials token for the MCP server (RFC 8707), and calls a tool with it.

describe(`MCP SDK ClientCredentialsProvider and PrivateKeyJwtProvider end to end (${backend})`, () => {
  let server: TestServer & { baseUrl: string };
  let mcp: ProtectedMcpServer;
  const wire: RecordedRequest[] = [];
  beforeAll(async () => {
    server = await listeningTestServer({
      // The SDK's metadata schema requires authorization_endpoint (RFC 8414 does not, without a grant that uses it),
      // which this service lists while the code flow is on.
      grantFlows: ['authorization_code', 'client_credentials'],
      defaultScopes: ['read'],
      introspection: { allow: [{ rule: 'audience' }] },
    });
    const api = await createClient(server.deps, { name: 'MCP server' });
    mcp = await protectedMcpServer({
      introspectionUrl: `${server.baseUrl}/oauth/introspect`,
      clientId: api.uid,
      clientSecret: api.secret!,
      scopesSupported: ['read'],
    });
    await server.deps.stores.resources.create({
      uri: mcp.url,
      name: 'Test MCP server',
      scopes: ['read'],
      tokenFormat: 'opaque',
      accessTokenLifetime: null,
      serverClientId: api.uid,
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
  });

  async function whoami(authProvider: OAuthClientProvider): Promise<Record<string, unknown>> {
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider, fetch: recordingFetch(wire) });
    const client = new Client({ name: 'machine', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'whoami' });
      return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>;
    } finally {
      await client.close();
    }
  }

  const tokenRequestsSince = (start: number) => wire.slice(start).filter((request) => request.url === `${server.baseUrl}/oauth/token`);

  it.each(['ES256', 'RS256'])(
    'PrivateKeyJwtProvider (%s): a token from a signed assertion, and the tool answers for the client',
    async (alg) => {
      const key: ClientKey = await clientKey(alg);
      const client = await privateKeyJwtClient(server.deps, { jwks: jwksOf(key) });
      const start = wire.length;
      const provider = new PrivateKeyJwtProvider({
        clientId: client.uid,
        privateKey: key.privatePem,
        algorithm: alg,
        expectedIssuer: server.baseUrl,
        scope: 'read',
      });
      expect(await whoami(provider)).toMatchObject({ clientId: client.uid, scopes: ['read'], audience: [mcp.url] });
      const [request] = tokenRequestsSince(start);
      const sent = new URLSearchParams(request!.body);
      expect(sent.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      expect(sent.get('client_secret')).toBeNull();
      expect(request!.status).toBe(200);
    },
  );

  it('ClientCredentialsProvider (client_secret_basic): the same tool call with a secret', async () => {
    const client = await createClient(server.deps);
    const provider = new ClientCredentialsProvider({
      clientId: client.uid,
      clientSecret: client.secret!,
      expectedIssuer: server.baseUrl,
      scope: 'read',
    });
    expect(await whoami(provider)).toMatchObject({ clientId: client.uid, scopes: ['read'], audience: [mcp.url] });
  });

  it('PrivateKeyJwtProvider with a key the client did not register: no token, the connection fails', async () => {
    const client = await privateKeyJwtClient(server.deps, { jwks: jwksOf(await clientKey('ES256')) });
    const start = wire.length;
    const provider = new PrivateKeyJwtProvider({
      clientId: client.uid,
      privateKey: (await clientKey('ES256')).privatePem,
      algorithm: 'ES256',
      expectedIssuer: server.baseUrl,
      scope: 'read',
    });
    await expect(whoami(provider)).rejects.toThrow();
    const requests = tokenRequestsSince(start);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests)
      expect({ status: request.status, error: JSON.parse(request.responseBody).error }).toEqual({ status: 401, error: 'invalid_client' });
  });
});
