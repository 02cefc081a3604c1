import { discoverAuthorizationServerMetadata, registerClient } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../helpers/test-database.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import type { TestServer } from '../helpers/test-server.js';

// RFC 7591 with the client most self-registering clients run (CLIENTS.md): the MCP SDK discovers this service,
// registers as an MCP desktop or command-line client does (no application_type, a loopback redirect URI), and
// parses the answer with its own schema.

describe(`RFC 7591 registration by @modelcontextprotocol/sdk (${backend})`, () => {
  let server: TestServer & { baseUrl: string };
  beforeAll(async () => {
    server = await listeningTestServer({
      registration: { policy: 'open', perAddressPerMinute: 0 },
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
