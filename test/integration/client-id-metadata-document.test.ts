import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK, documentFixture, json, pkceAuthorizeUrl, type DocumentFixture } from '../helpers/client-metadata-document-server.js';
import { createUser, locationParameters, publicCodeFlow, signedIn, type UserAgent } from '../helpers/end-user.js';
import { bearer, tokenInfoRequest } from '../helpers/oauth-requests.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// draft-ietf-oauth-client-id-metadata-document (the MCP authorization spec's preferred client registration): a
// client_id that is an https URL is fetched and its document becomes a public client. Served over http here
// (allowPrivateAddresses, the development setting); https and the address checks are in the -addresses file,
// caching and refetching the document in the -caching file.

describe(`Client ID Metadata Documents: the authorization code flow with a URL client_id (${backend})`, () => {
  let cimd: DocumentFixture;
  let server: TestServer;
  let documents: DocumentFixture['documents'];
  let agent: UserAgent;
  let clientId: string;

  beforeAll(async () => {
    cimd = await documentFixture({ build: openIdServer, config: { optionalScopes: ['write'] } });
    ({ server, documents } = cimd);
    await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
    clientId = cimd.urlOf('/oauth/client.json');
    documents.serve(
      '/oauth/client.json',
      json(
        {
          client_id: clientId,
          client_name: 'Document <b>Client</b>',
          client_uri: 'https://client.example.com/',
          logo_uri: 'http://client.example.com/logo.png',
          policy_uri: 'https://169.254.169.254/policy',
          // Refused as at a registration (client-registration-uris.ts): a single-label name, written with the root's dot.
          tos_uri: 'https://intranet./tos',
          redirect_uris: [CALLBACK],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          // Issue 29: within registration.allowedScopes (the default scopes and OpenID Connect's), or it is refused.
          scope: 'openid read',
        },
        { 'cache-control': 'max-age=300' },
      ),
    );
  });
  afterAll(async () => {
    await cimd?.close();
  });

  it('advertises client_id_metadata_document_supported in both metadata documents, and only when enabled', async () => {
    for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const response = await server.app.inject({ method: 'GET', url });
      expect(response.json().client_id_metadata_document_supported, url).toBe(true);
    }
    const off = await buildTestServer({ testDatabase: server.testDatabase });
    const response = await off.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(response.json()).not.toHaveProperty('client_id_metadata_document_supported');
    await off.close();
  });

  it('GET /oauth/authorize fetches the document, consent and PKCE give a code, POST /oauth/token exchanges it without a secret', async () => {
    const { consent, approved, token } = await publicCodeFlow(server.app, agent, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      scope: 'read',
      state: 'st',
    });
    // The name comes from the document and is printed escaped.
    expect(consent.body).toContain('Document &lt;b&gt;Client&lt;/b&gt;');
    expect(consent.body).not.toContain('<b>Client</b>');
    expect(approved.statusCode).toBe(303);
    const redirect = locationParameters(approved);
    expect(redirect.get('state')).toBe('st');
    expect(redirect.get('code')).toBeTruthy();

    expect(token?.statusCode).toBe(200);
    const body = token!.json();
    expect(body.scope).toBe('read');
    const info = await tokenInfoRequest(server.app, bearer(body.access_token));
    expect(info.json().application).toEqual({ uid: clientId });
    // One fetch served the whole flow (max-age=300).
    expect(documents.requests.filter((path) => path === '/oauth/client.json')).toHaveLength(1);
  });

  it('stores the client as a public metadata_document application with the document metadata (display URIs only https to public hosts)', async () => {
    const row = await server.deps.stores.applications.findByUid(clientId);
    expect(row).toMatchObject({
      uid: clientId,
      name: 'Document <b>Client</b>',
      confidential: false,
      secret: null,
      registeredBy: 'metadata_document',
      redirectUris: [CALLBACK],
      scopes: ['openid', 'read'],
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'none',
      clientUri: 'https://client.example.com/',
      logoUri: null,
      policyUri: null,
      tosUri: null,
    });
    const expiresIn = row!.metadataExpiresAt!.getTime() - server.clock.now.getTime();
    expect(expiresIn).toBeGreaterThan(290_000);
    expect(expiresIn).toBeLessThanOrEqual(300_000);
  });

  it('an unregistered redirect_uri is refused on the error page like for any client', async () => {
    const page = await agent.request({
      method: 'GET',
      url: pkceAuthorizeUrl({ client_id: clientId, redirect_uri: 'https://evil.example/cb' }),
    });
    expect(page.statusCode).toBe(400);
    expect(page.headers.location).toBeUndefined();
  });

  it("the consent screen's unreviewed-client notice goes with an admin's approval and comes back when the document changes its redirect URIs", async () => {
    const consent = () =>
      agent.request({
        method: 'GET',
        url: pkceAuthorizeUrl({ client_id: clientId, redirect_uri: CALLBACK, scope: 'read' }),
      });
    const notice = 'id="self-registered-notice"';
    expect((await consent()).body).toContain(notice);
    const row = await server.deps.stores.applications.findByUid(clientId);
    await server.deps.stores.applicationAdmin.update(row!.id, { approvedAt: server.clock.now });
    expect((await consent()).body).not.toContain(notice);

    documents.serve(
      '/oauth/client.json',
      json(
        { client_id: clientId, client_name: 'Document <b>Client</b>', redirect_uris: [CALLBACK, 'https://elsewhere.example/cb'] },
        { 'cache-control': 'max-age=300' },
      ),
    );
    server.clock.advance(301);
    const page = await consent();
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(notice);
    expect((await server.deps.stores.applications.findByUid(clientId))!.approvedAt).toBeNull();
  });
});
