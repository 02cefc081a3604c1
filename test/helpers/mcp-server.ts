import Fastify, { type FastifyInstance } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { serviceGuard } from '@oauth-service/guard';
import { freePort } from '../../scripts/lib/ports.js';

export interface ProtectedMcpServer {
  /** The MCP endpoint, also the resource identifier (RFC 8707) registered at the service: http://127.0.0.1:PORT/mcp. */
  url: string;
  /** Every request the MCP endpoint received, with its Authorization header and the status it answered. */
  requests: Array<{ method: string; authorization: string | undefined; status: number }>;
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface ProtectedMcpServerOptions {
  /** The service's introspection endpoint and the MCP server's own confidential client there. */
  introspectionUrl: string;
  clientId: string;
  clientSecret: string;
  scopesSupported: string[];
}

/**
 * An MCP server (Streamable HTTP transport, stateless: one transport and one McpServer per request, as the SDK's
 * stateless example does) behind the guard in remote mode with `resource` = its own URL, so the guard serves its
 * RFC 9728 metadata and answers 401 with resource_metadata. One tool, `whoami`, returns what the token says.
 */
export async function protectedMcpServer(options: ProtectedMcpServerOptions): Promise<ProtectedMcpServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const requests: ProtectedMcpServer['requests'] = [];
  const app = Fastify();
  await app.register(serviceGuard, {
    mode: 'remote',
    introspectionUrl: options.introspectionUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    // Every call is checked with the service, so a revocation is seen at the next call (30 s by default).
    cacheTtlSeconds: 0,
    negativeCacheTtlSeconds: 0,
    resource: url,
    scopesSupported: options.scopesSupported,
    resourceName: 'Test MCP server',
  });
  // Recorded when the response is written: the MCP route hijacks its reply, so Fastify's onResponse does not see it.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/mcp')) return;
    reply.raw.once('finish', () =>
      requests.push({ method: request.method, authorization: request.headers.authorization, status: reply.raw.statusCode }),
    );
  });
  // Stateless: no standalone SSE stream (GET) and no session to end (DELETE), as in the SDK's stateless example.
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    preHandler: app.serviceAuthorize(),
    handler: async (_request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }),
  });
  app.post('/mcp', { preHandler: app.serviceAuthorize() }, async (request, reply) => {
    const token = await request.serviceToken();
    const mcp = new McpServer({ name: 'test-mcp-server', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Who the access token speaks for' }, async () => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify({
            resourceOwnerId: token?.resourceOwnerId,
            clientId: token?.clientId,
            scopes: token?.scopes,
            audience: token?.audience,
          }),
        },
      ],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  await app.listen({ port, host: '127.0.0.1' });
  return { url, requests, app, close: () => app.close() };
}
