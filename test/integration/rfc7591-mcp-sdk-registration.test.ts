import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { discoverAuthorizationServerMetadata, registerClient, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, hiddenFields, locationParameters, signedIn } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { RecordingOAuthProvider, recordingFetch, type RecordedRequest } from '../helpers/mcp-client.js';
import { protectedMcpServer, type ProtectedMcpServer } from '../helpers/mcp-server.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';

// RFC 7591 with the client most self-registering clients run (CLIENTS.md): the MCP SDK discovers this service,
// registers as an MCP desktop or command-line client does (no application_type, a loopback redirect URI), and
// parses the answer with its own schema.

describe(`RFC 7591 registration by @modelcontextprotocol/sdk (${backend})`, () => {
  let server: TestServer & { baseUrl: string };
  beforeAll(async () => {
    server = await listeningTestServer({
      // Issue 29: self-registered clients get write only because the operator allows it here.
      registration: { policy: 'open', perAddressPerMinute: 0, allowedScopes: ['read', 'write'] },
      defaultScopes: ['read'],
      optionalScopes: ['write'],
    });
  });
  afterAll(() => server.close());

  for (const [label, redirect, authMethod] of [
    ['a public client on a localhost port', 'http://localhost:8090/callback', 'none'],
    ['a confidential client on 127.0.0.1', 'http://127.0.0.1:33418/', 'client_secret_post'],
  ] as const) {
    it(`registers ${label} as native and the SDK accepts the answer`, async () => {
      const metadata = await discoverAuthorizationServerMetadata(server.baseUrl);
      expect(metadata?.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['none', authMethod]));
      const information = await registerClient(server.baseUrl, {
        metadata,
        clientMetadata: {
          client_name: 'MCP CLI',
          redirect_uris: [redirect],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: authMethod,
          client_uri: 'https://mcp-client.example/',
          software_id: 'mcp-cli',
          software_version: '1.32.2',
        },
        scope: 'read write',
      });
      expect(information).toMatchObject({
        redirect_uris: [redirect],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: authMethod,
        scope: 'read write',
        client_uri: 'https://mcp-client.example/',
      });
      expect(typeof information.client_id).toBe('string');
      expect(information.client_secret === undefined).toBe(authMethod === 'none');
      const stored = await server.deps.stores.applications.findByUid(information.client_id);
      expect(stored).toMatchObject({ applicationType: 'native', registeredBy: 'dynamic', tokenEndpointAuthMethod: authMethod });
    });
  }
});

// Issue 29 item 1 with the README's MCP recipe as it is (open registration, nothing else allowed): the MCP SDK's own
// client still registers and completes the code flow against an MCP server behind the guard, and the same kind of
// client gets no client_credentials token, neither by registering for it nor with the credentials it registered.
describe(`issue 29 item 1: an MCP SDK client under open registration (${backend})`, () => {
  let server: TestServer & { baseUrl: string };
  let mcp: ProtectedMcpServer;
  const wire: RecordedRequest[] = [];
  beforeAll(async () => {
    server = await listeningTestServer({
      registration: { policy: 'open', perAddressPerMinute: 0 },
      defaultScopes: ['read'],
      optionalScopes: ['write', 'admin'],
      introspection: { allow: [{ rule: 'sameApplication' }, { rule: 'audience' }], response: { sub: 'resourceOwnerId' } },
    });
    await createUser(server.deps, 'alice');
    const api = await createClient(server.deps, { name: 'MCP server', redirectUri: 'https://mcp.example/unused' });
    mcp = await protectedMcpServer({
      introspectionUrl: `${server.baseUrl}/oauth/introspect`,
      clientId: api.application.uid,
      clientSecret: api.plainSecret!,
      scopesSupported: ['read'],
    });
    await server.deps.stores.resources.create({
      uri: mcp.url,
      name: 'Test MCP server',
      scopes: ['read', 'write', 'admin'],
      tokenFormat: 'opaque',
      accessTokenLifetime: null,
      serverClientId: api.application.uid,
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
  });

  const transport = (authProvider: OAuthClientProvider) =>
    new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider, fetch: recordingFetch(wire) });

  it('issue 29 item 1 (RFC 7591 section 3.2.2): a self-registered MCP SDK client completes the code flow, and cannot get client_credentials', async () => {
    const agent = await signedIn(server.app, 'alice');
    const codes: string[] = [];
    // The person's part, through the service's own pages: the consent page, then Authorize; the code is the client's.
    const approve = async (url: URL) => {
      const consent = await agent.request({ method: 'GET', url: `${url.pathname}${url.search}` });
      expect(consent.statusCode, consent.body.slice(0, 300)).toBe(200);
      const approved = await agent.request({
        method: 'POST',
        url: '/oauth/authorize',
        headers: FORM,
        payload: form(hiddenFields(consent.body)),
      });
      codes.push(locationParameters(approved).get('code')!);
    };
    const metadata = {
      client_name: 'MCP CLI',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    };
    const provider = new RecordingOAuthProvider(metadata.redirect_uris[0]!, metadata, approve);
    await expect(new Client({ name: 'mcp-cli', version: '1.0.0' }).connect(transport(provider))).rejects.toThrow(/Unauthorized/);
    expect(codes).toHaveLength(1);
    await transport(provider).finishAuth(codes[0]!);
    expect(provider.savedTokens[0]).toMatchObject({ scope: 'read' });
    const client = new Client({ name: 'mcp-cli', version: '1.0.0' });
    await client.connect(transport(provider));
    const result = await client.callTool({ name: 'whoami' });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ scopes: ['read'], audience: [mcp.url] });
    await client.close();

    // Registering for client_credentials, as the SDK's ClientCredentialsProvider describes itself: refused, naming it.
    const serverMetadata = await discoverAuthorizationServerMetadata(server.baseUrl);
    await expect(
      registerClient(server.baseUrl, {
        metadata: serverMetadata,
        clientMetadata: {
          client_name: 'machine',
          redirect_uris: [],
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
        scope: 'read write admin',
      }),
    ).rejects.toThrow('grant_types: client_credentials is not allowed for clients that register themselves here.');
    // The code-flow client's own credentials in the SDK's client_credentials flow: the token endpoint says no.
    const registered = provider.clientInformation() as { client_id: string; client_secret: string };
    const machine = new ClientCredentialsProvider({
      clientId: registered.client_id,
      clientSecret: registered.client_secret,
      expectedIssuer: server.baseUrl,
      scope: 'read write admin',
    });
    const before = wire.length;
    await expect(new Client({ name: 'machine', version: '1.0.0' }).connect(transport(machine))).rejects.toThrow();
    // The SDK tries once more after unauthorized_client (it would register again if it could); every try is refused.
    const tokenRequests = wire.slice(before).filter((request) => request.url === `${server.baseUrl}/oauth/token`);
    expect(tokenRequests.length).toBeGreaterThan(0);
    for (const request of tokenRequests) {
      expect(new URLSearchParams(request.body).get('grant_type')).toBe('client_credentials');
      expect({ status: request.status, error: JSON.parse(request.responseBody).error }).toEqual({
        status: 400,
        error: 'unauthorized_client',
      });
    }
  });
});
