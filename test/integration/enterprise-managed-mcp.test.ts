import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import type { IdJagAudienceConfig } from '../../src/config/token-exchange-schema.js';
import type { TrustedIssuerConfig } from '../../src/config/trusted-issuers-schema.js';
import type { GrantFlow } from '../../src/config/types.js';
import { JWT_BEARER_GRANT } from '../../src/oauth/assertions/jwt-bearer-grant-type.js';
import { TOKEN_EXCHANGE_GRANT, TOKEN_TYPES } from '../../src/oauth/exchange/token-exchange-grant-type.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { createClient, createUser, signedIn } from '../helpers/end-user.js';
import { createClient as createTestClient } from '../helpers/factories.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { protectedMcpServer, type ProtectedMcpServer } from '../helpers/mcp-server.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { codeFlow } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 34 acceptance, enterprise-managed MCP with two instances of this product on real sockets and their own
// databases: A is the enterprise identity provider (OpenID Connect on; the user signs in to the client there, and the
// client exchanges the ID token for an ID-JAG aimed at B, RFC 8693), B is the MCP server's authorization server and
// trusts A (trustedIssuers, idJag, A's /oauth/jwks): the client redeems the ID-JAG with the JWT bearer grant (RFC 7523)
// and calls a tool of the MCP server behind the guard with B's token.

async function setGrantTypes(server: TestServer, application: ApplicationRecord, grantTypes: string[]) {
  return (await server.deps.stores.applicationAdmin.update(application.id, { grantTypes }))!;
}

describe(`Enterprise-managed MCP authorization across two instances (${backend})`, () => {
  let a: TestServer;
  let b: TestServer & { baseUrl: string };
  let mcp: ProtectedMcpServer;
  let issuerA: string;

  beforeAll(async () => {
    const portA = await freePort();
    issuerA = `http://127.0.0.1:${portA}`;
    b = await listeningTestServer({
      grantFlows: ['authorization_code', 'client_credentials', JWT_BEARER_GRANT] as GrantFlow[],
      defaultScopes: ['read'],
      introspection: { allow: [{ rule: 'audience' }] },
      trustedIssuers: [
        { issuer: issuerA, jwksUri: `${issuerA}/oauth/jwks`, idJag: true, createUsers: true, clients: ['agent'], scopes: ['read'] },
      ] as TrustedIssuerConfig[],
    });
    const guardClient = await createTestClient(b.deps, { name: 'MCP server' });
    mcp = await protectedMcpServer({
      introspectionUrl: `${b.baseUrl}/oauth/introspect`,
      clientId: guardClient.uid,
      clientSecret: guardClient.secret!,
      scopesSupported: ['read'],
    });
    await b.deps.stores.resources.create({
      uri: mcp.url,
      name: 'Test MCP server',
      scopes: ['read'],
      tokenFormat: 'opaque',
      accessTokenLifetime: null,
      serverClientId: guardClient.uid,
    });
    a = await buildTestServer({
      config: {
        baseUrl: issuerA,
        openid: { enabled: true },
        grantFlows: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT] as GrantFlow[],
        defaultScopes: ['read'],
        tokenExchange: {
          idJagAudiences: [{ audience: b.baseUrl, clientId: 'agent', clients: ['web'], resource: mcp.url }] as IdJagAudienceConfig[],
        },
      },
      env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    });
    await a.app.listen({ port: portA, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await mcp?.close();
    await a?.close();
    await b?.close();
  });

  it("A's ID token becomes an ID-JAG for B, B's JWT bearer grant redeems it, and the guarded MCP server answers a tool call", async () => {
    // At A: the enterprise user signs in to the client, which gets an ID token by the code flow.
    const web = await createClient(a.deps, {}, { uid: 'web' });
    web.application = await setGrantTypes(a, web.application, ['authorization_code', TOKEN_EXCHANGE_GRANT]);
    await createUser(a.deps, 'erin');
    const { response } = await codeFlow(a, await signedIn(a.app, 'erin'), web, { scope: 'openid read' });
    expect(response.statusCode, response.body).toBe(200);
    const exchanged = await tokenRequest(
      a.app,
      {
        grant_type: TOKEN_EXCHANGE_GRANT,
        subject_token: response.json().id_token,
        subject_token_type: TOKEN_TYPES.idToken,
        requested_token_type: TOKEN_TYPES.idJag,
        audience: b.baseUrl,
        scope: 'read',
      },
      basic('web', web.plainSecret!),
    );
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    const idJag = exchanged.json().access_token as string;

    // At B: the same client (its id there is "agent") redeems the ID-JAG; B fetches A's keys over HTTP.
    const agent = await createClient(b.deps, {}, { uid: 'agent' });
    await setGrantTypes(b, agent.application, [JWT_BEARER_GRANT]);
    const redeemed = await tokenRequest(b.app, { grant_type: JWT_BEARER_GRANT, assertion: idJag }, basic('agent', agent.plainSecret!));
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    const accessToken = redeemed.json().access_token as string;
    // The single-use jti: the same ID-JAG again is refused.
    const replayed = await tokenRequest(b.app, { grant_type: JWT_BEARER_GRANT, assertion: idJag }, basic('agent', agent.plainSecret!));
    expect(replayed.json()).toMatchObject({ error: 'invalid_grant' });

    // The MCP server behind the guard answers for the user B made for A's subject, with the ID-JAG's resource.
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    });
    const client = new Client({ name: 'enterprise-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'whoami' });
      const said = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>;
      expect(said).toMatchObject({ clientId: 'agent', scopes: ['read'], audience: [mcp.url] });
      expect(said.resourceOwnerId).toEqual(expect.anything());
    } finally {
      await client.close();
    }
  });
});
