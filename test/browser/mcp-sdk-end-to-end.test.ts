import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/oauth/store.js';
import { authorizeInChromium, screenshot } from '../helpers/browser.js';
import {
  documentServer,
  documentSettings,
  json,
  selfSignedCertificate,
  type DocumentServer,
} from '../helpers/client-metadata-document-server.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { RecordingOAuthProvider, recordingFetch, type RecordedRequest } from '../helpers/mcp-client.js';
import { protectedMcpServer, type ProtectedMcpServer } from '../helpers/mcp-server.js';
import { chromiumPage, closeAll } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 19 end to end: the MCP SDK's own client (StreamableHTTPClientTransport with an OAuthClientProvider) against
// an MCP server protected by the guard (remote mode, RFC 9728 metadata), starting from nothing but the MCP server's
// URL: the 401 names the resource metadata, which names this service; the client registers itself (RFC 7591), a
// person signs in and consents in Chromium (authorization code, PKCE S256, RFC 8707 resource = the MCP URL), the
// client calls a tool, refreshes after its access token expired, and is refused once the person revokes it.
// Twice: once registering with RFC 7591 at /oauth/register, once with a Client ID Metadata Document that the test
// serves over https with a self-signed certificate the service is told to trust (clientMetadataDocumentCa).

const SCOPE = 'read';
const ACCESS_TOKEN_LIFETIME = 60;
const CLIENT_NAME = 'MCP test client';

type Registration = 'dynamic' | 'metadata_document';

describe.each<[string, Registration]>([
  ['dynamic client registration (RFC 7591)', 'dynamic'],
  ['a Client ID Metadata Document served over https', 'metadata_document'],
])('MCP SDK client and server end to end, with %s, in Chromium', (_title, registration) => {
  let server: TestServer & { baseUrl: string };
  let mcp: ProtectedMcpServer;
  let callback: ClientCallback;
  let browser: Browser;
  let page: Page;
  let user: UserRecord;
  let provider: RecordingOAuthProvider;
  /** The MCP client after authorization, used by the steps that follow. */
  let client: Client;
  let documents: DocumentServer | undefined;
  let documentUrl: string | undefined;
  const wire: RecordedRequest[] = [];
  const codes: string[] = [];

  beforeAll(async () => {
    const certificate = registration === 'metadata_document' ? selfSignedCertificate() : undefined;
    if (certificate) {
      documents = await documentServer(certificate);
      documentUrl = `${documents.origin}/mcp-client.json`;
    }
    server = await listeningTestServer(
      {
        registration: {
          policy: 'open',
          // The document server is on loopback: allowed here for the test, as in development.
          ...(certificate && { clientIdMetadataDocuments: documentSettings() }),
        },
        defaultScopes: [SCOPE],
        scopeDescriptions: { read: 'Read your notes' },
        // The MCP server introspects tokens issued to other clients for its resource (the audience rule).
        introspection: {
          allow: [{ rule: 'sameApplication' }, { rule: 'tokenApplication' }, { rule: 'audience' }],
          response: { sub: 'resourceOwnerId' },
        },
      },
      { clientMetadataDocumentCa: certificate?.cert },
    );
    user = await createUser(server.deps, 'alice');
    callback = await clientCallbackServer();
    const mcpClient = await createClient(server.deps, { name: 'MCP server', redirectUri: 'https://mcp.example/unused' });
    mcp = await protectedMcpServer({
      introspectionUrl: `${server.baseUrl}/oauth/introspect`,
      clientId: mcpClient.application.uid,
      clientSecret: mcpClient.plainSecret!,
      scopesSupported: [SCOPE],
    });
    // The MCP server's URL is its resource identifier (what the SDK sends as `resource`), registered here.
    await server.deps.stores.resources.create({
      uri: mcp.url,
      name: 'Test MCP server',
      scopes: [SCOPE],
      tokenFormat: 'opaque',
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME,
      serverClientId: mcpClient.application.uid,
    });
    ({ browser, page } = await chromiumPage());
    const metadata = {
      client_name: CLIENT_NAME,
      redirect_uris: [callback.url],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    // The document names itself as client_id (draft-ietf-oauth-client-id-metadata-document section 4.1).
    documents?.serve('/mcp-client.json', json({ client_id: documentUrl, ...metadata }));
    provider = new RecordingOAuthProvider(callback.url, metadata, approveInChromium, documentUrl);
  });
  afterAll(() => closeAll(client, browser, mcp, server, callback, documents));

  /** The person's part: signs in when asked, clicks Authorize, and the code arrives at the client's loopback callback. */
  async function approveInChromium(url: URL) {
    const at = await authorizeInChromium(page, url.href, {
      callbackUrl: callback.url,
      username: 'alice',
      password: PASSWORD,
      async onConsent() {
        expect(await page.locator('strong.text-info').first().textContent()).toBe(CLIENT_NAME);
        expect(await page.locator('#oauth-resources li').allTextContents()).toEqual([mcp.url]);
        await screenshot(page, `mcp-consent-${registration}`);
      },
    });
    expect(at.searchParams.get('state')).toBe(provider.states.at(-1));
    expect(at.searchParams.get('iss')).toBe(server.baseUrl);
    codes.push(at.searchParams.get('code')!);
  }

  const transport = () => new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider, fetch: recordingFetch(wire) });
  const serviceRequests = (path: string) =>
    wire.filter((request) => new URL(request.url).origin === server.baseUrl && new URL(request.url).pathname === path);
  const lines = (requests: RecordedRequest[]) => requests.map((request) => `${request.method} ${request.url} ${request.status}`);
  // The SDK discovers again at every auth() (this provider keeps no discoveryState): RFC 9728, then RFC 8414.
  const discovery = () => [
    `GET ${mcp.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp')} 200`,
    `GET ${server.baseUrl}/.well-known/oauth-authorization-server 200`,
  ];

  it('from the MCP URL alone: 401 with resource_metadata, discovery, registration, then authorization with PKCE and resource', async () => {
    const first = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    await expect(first.connect(transport())).rejects.toThrow(UnauthorizedError);

    expect(mcp.requests[0]).toMatchObject({ method: 'POST', authorization: undefined, status: 401 });
    // RFC 9728 from the guard: the MCP URL is the resource, this service its authorization server.
    expect(JSON.parse(wire[1]!.responseBody)).toMatchObject({ resource: mcp.url, authorization_servers: [server.baseUrl] });
    const serverMetadata = JSON.parse(wire[2]!.responseBody);
    expect(serverMetadata.code_challenge_methods_supported).toContain('S256');
    const registered = provider.clientInformation()!;
    if (registration === 'dynamic') {
      expect(serverMetadata.registration_endpoint).toBe(`${server.baseUrl}/oauth/register`);
      expect(lines(wire)).toEqual([`POST ${mcp.url} 401`, ...discovery(), `POST ${server.baseUrl}/oauth/register 201`]);
      expect(registered.client_id).toMatch(/\S/);
    } else {
      // The metadata says client_id_metadata_document_supported: the SDK registers nothing and uses its URL.
      expect(serverMetadata.client_id_metadata_document_supported).toBe(true);
      expect(lines(wire)).toEqual([`POST ${mcp.url} 401`, ...discovery()]);
      expect(registered.client_id).toBe(documentUrl);
      // The service fetched the document (over https, trusting the test's certificate) when the authorization came.
      expect(documents!.requests).toContain('/mcp-client.json');
    }
    expect(await server.deps.stores.applications.findByUid(registered.client_id)).toMatchObject({
      registeredBy: registration,
      confidential: false,
      name: CLIENT_NAME,
      redirectUris: [callback.url],
    });

    expect(provider.authorizationUrls).toHaveLength(1);
    const authorization = provider.authorizationUrls[0]!;
    expect(authorization.origin + authorization.pathname).toBe(`${server.baseUrl}/oauth/authorize`);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: callback.url,
      code_challenge_method: 'S256',
      scope: SCOPE,
      resource: mcp.url,
    });
    expect(codes).toHaveLength(1);
  });

  it('finishAuth exchanges the code (with the verifier and resource) and the tool call carries the user and the client', async () => {
    const finishing = transport();
    await finishing.finishAuth(codes[0]!);
    const [exchange] = serviceRequests('/oauth/token');
    expect(exchange!.status).toBe(200);
    expect(Object.fromEntries(new URLSearchParams(exchange!.body))).toMatchObject({
      grant_type: 'authorization_code',
      code: codes[0],
      resource: mcp.url,
    });
    expect(new URLSearchParams(exchange!.body).get('code_verifier')).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(provider.savedTokens).toHaveLength(1);
    expect(provider.savedTokens[0]).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), expires_in: ACCESS_TOKEN_LIFETIME });
    expect(provider.savedTokens[0]!.refresh_token).toBeTruthy();

    client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    await client.connect(transport());
    const result = await client.callTool({ name: 'whoami' });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({
      resourceOwnerId: String(user.id),
      clientId: provider.clientInformation()!.client_id,
      scopes: [SCOPE],
      audience: [mcp.url],
    });
    expect(mcp.requests.at(-1)).toMatchObject({ authorization: `Bearer ${provider.savedTokens[0]!.access_token}`, status: 200 });
  });

  it('after the access token expired: the MCP server answers 401, the SDK refreshes at this service, the call succeeds with the new token', async () => {
    server.clock.advance(ACCESS_TOKEN_LIFETIME + 1);
    const before = wire.length;
    const result = await client.callTool({ name: 'whoami' });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ resourceOwnerId: String(user.id) });

    const [old, renewed] = provider.savedTokens;
    expect(provider.savedTokens).toHaveLength(2);
    expect(renewed!.access_token).not.toBe(old!.access_token);
    const since = wire.slice(before);
    expect(lines(since)).toEqual([`POST ${mcp.url} 401`, ...discovery(), `POST ${server.baseUrl}/oauth/token 200`, `POST ${mcp.url} 200`]);
    expect(Object.fromEntries(new URLSearchParams(since[3]!.body))).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: old!.refresh_token,
      resource: mcp.url,
    });
    expect(mcp.requests.at(-1)).toMatchObject({ authorization: `Bearer ${renewed!.access_token}`, status: 200 });
  });

  it('after the user revokes the application on /oauth/authorized_applications, the next call is refused and the SDK re-authorizes', async () => {
    await page.goto(`${server.baseUrl}/oauth/authorized_applications`);
    const row = page.locator('tbody tr', { hasText: CLIENT_NAME });
    expect(await row.count()).toBe(1);
    await row.getByRole('button', { name: `Revoke ${CLIENT_NAME}` }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toBe('Application revoked.');

    // This time nobody approves: the SDK's way back is a new authorization, which the test only records.
    provider.onRedirect = async () => {};
    const before = wire.length;
    await expect(client.callTool({ name: 'whoami' })).rejects.toThrow(UnauthorizedError);
    const since = wire.slice(before);
    // The refresh is refused with invalid_grant; the SDK drops its tokens and discovers again to start authorizing.
    expect(lines(since)).toEqual([`POST ${mcp.url} 401`, ...discovery(), `POST ${server.baseUrl}/oauth/token 400`, ...discovery()]);
    expect(new URLSearchParams(since[3]!.body).get('grant_type')).toBe('refresh_token');
    expect(JSON.parse(since[3]!.responseBody)).toMatchObject({ error: 'invalid_grant' });
    expect(provider.invalidations).toEqual(['tokens']);
    expect(provider.authorizationUrls).toHaveLength(2);
    expect(provider.authorizationUrls[1]!.searchParams.get('client_id')).toBe(provider.clientInformation()!.client_id);
    expect(provider.tokens()).toBeUndefined();
    expect(mcp.requests.at(-1)).toMatchObject({ status: 401 });
  });
});
