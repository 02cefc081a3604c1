import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/pkce.js';
import { CALLBACK, documentFixture, json, type DocumentFixture, type DocumentServer } from '../helpers/client-metadata-document-server.js';
import { authorizeUrl, createUser, locationParameters, publicCodeFlow, signedIn, type UserAgent } from '../helpers/end-user.js';
import { bearer, tokenInfoRequest } from '../helpers/oauth-requests.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// draft-ietf-oauth-client-id-metadata-document (the MCP authorization spec's preferred client registration): a
// client_id that is an https URL is fetched and its document becomes a public client. Served over http here
// (allowPrivateAddresses, the development setting); https and the address checks are in the -fetch file.

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe(`Client ID Metadata Documents: the authorization code flow with a URL client_id (${backend})`, () => {
  let cimd: DocumentFixture;
  let server: TestServer;
  let documents: DocumentServer;
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
          tos_uri: 'https://localhost/tos',
          redirect_uris: [CALLBACK],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          scope: 'read write admin',
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
      scopes: ['read', 'write'],
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
      url: authorizeUrl({
        client_id: clientId,
        redirect_uri: 'https://evil.example/cb',
        response_type: 'code',
        code_challenge: s256Challenge(VERIFIER),
        code_challenge_method: 'S256',
      }),
    });
    expect(page.statusCode).toBe(400);
    expect(page.headers.location).toBeUndefined();
  });

  it("the consent screen's unreviewed-client notice goes with an admin's approval and comes back when the document changes its redirect URIs", async () => {
    const consent = () =>
      agent.request({
        method: 'GET',
        url: authorizeUrl({
          client_id: clientId,
          redirect_uri: CALLBACK,
          response_type: 'code',
          scope: 'read',
          code_challenge: s256Challenge(VERIFIER),
          code_challenge_method: 'S256',
        }),
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

describe(`Client ID Metadata Documents: caching and refreshing the client (${backend})`, () => {
  let cimd: DocumentFixture;
  let server: TestServer;
  let documents: DocumentServer;
  let log: DocumentFixture['log'];

  beforeAll(async () => {
    cimd = await documentFixture({ settings: { maxCacheSeconds: 3600 } });
    ({ server, documents, log } = cimd);
  });
  afterAll(async () => {
    await cimd?.close();
  });

  const fetchesOf = (path: string) => documents.requests.filter((request) => request === path).length;
  /** What the token endpoint says of this client: invalid_client (refused), else the client was found. */
  const known = (clientId: string) => cimd.known(clientId);
  const redirectAccepted = async (clientId: string, redirectUri: string) => {
    const response = await server.app.inject({
      method: 'GET',
      url: authorizeUrl({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        code_challenge: s256Challenge(VERIFIER),
        code_challenge_method: 'S256',
      }),
    });
    // Not signed in: a verified request goes on to the login page; a bad redirect URI is shown as an error.
    return response.statusCode === 302 || response.statusCode === 303;
  };

  it('within max-age the cached document applies; after it the changed document does (a removed redirect URI stops working)', async () => {
    const clientId = `${documents.origin}/changing.json`;
    const second = 'https://client.example.com/second';
    documents.serve(
      '/changing.json',
      json({ client_id: clientId, redirect_uris: [CALLBACK] }, { 'cache-control': 'public, max-age=120, s-maxage=9999' }),
    );
    expect(await redirectAccepted(clientId, CALLBACK)).toBe(true);
    documents.serve('/changing.json', json({ client_id: clientId, redirect_uris: [second] }, { 'cache-control': 'max-age=120' }));
    expect(await redirectAccepted(clientId, second)).toBe(false);
    expect(await redirectAccepted(clientId, CALLBACK)).toBe(true);
    expect(fetchesOf('/changing.json')).toBe(1);

    server.clock.advance(121);
    expect(await redirectAccepted(clientId, second)).toBe(true);
    expect(await redirectAccepted(clientId, CALLBACK)).toBe(false);
    expect(fetchesOf('/changing.json')).toBe(2);
  });

  it('Cache-Control no-store: the document is fetched each time the client is looked up', async () => {
    const clientId = `${documents.origin}/no-store.json`;
    documents.serve('/no-store.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }, { 'cache-control': 'no-store' }));
    expect(await known(clientId)).toBe(true);
    expect(await known(clientId)).toBe(true);
    expect(fetchesOf('/no-store.json')).toBe(2);
  });

  it('without caching headers the document is used for 60 seconds; Expires is honoured when there is no max-age', async () => {
    const clientId = `${documents.origin}/plain.json`;
    documents.serve('/plain.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }));
    expect(await known(clientId)).toBe(true);
    server.clock.advance(59);
    expect(await known(clientId)).toBe(true);
    expect(fetchesOf('/plain.json')).toBe(1);
    server.clock.advance(2);
    expect(await known(clientId)).toBe(true);
    expect(fetchesOf('/plain.json')).toBe(2);

    const expiring = `${documents.origin}/expires.json`;
    const date = new Date();
    documents.serve('/expires.json', (_request, response) => {
      const headers = {
        'content-type': 'application/json',
        date: date.toUTCString(),
        expires: new Date(date.getTime() + 600_000).toUTCString(),
      };
      response.writeHead(200, headers).end(JSON.stringify({ client_id: expiring, redirect_uris: [CALLBACK] }));
    });
    expect(await known(expiring)).toBe(true);
    const row = await server.deps.stores.applications.findByUid(expiring);
    const seconds = (row!.metadataExpiresAt!.getTime() - server.clock.now.getTime()) / 1000;
    expect(seconds).toBeGreaterThan(590);
    expect(seconds).toBeLessThanOrEqual(600);
  });

  it('an expired client whose document can no longer be fetched is refused, and works again once it can', async () => {
    const clientId = `${documents.origin}/flaky.json`;
    const document = json({ client_id: clientId, redirect_uris: [CALLBACK] }, { 'cache-control': 'max-age=60' });
    documents.serve('/flaky.json', document);
    expect(await known(clientId)).toBe(true);
    documents.serve('/flaky.json', (_request, response) => response.writeHead(500).end());
    expect(await known(clientId)).toBe(true);
    server.clock.advance(61);
    expect(await known(clientId)).toBe(false);
    expect(log.lines.at(-1)).toMatchObject({ event: 'client_metadata_document.refused', clientId, reason: 'the URL answered status 500' });
    documents.serve('/flaky.json', document);
    // The refusal is remembered for 30 seconds on this instance; then the document is fetched again.
    expect(await known(clientId)).toBe(false);
    server.clock.advance(31);
    expect(await known(clientId)).toBe(true);
    expect(fetchesOf('/flaky.json')).toBe(3);
  });

  it('a refused document is not fetched again for 30 seconds: lookups meanwhile are an unknown client without a fetch', async () => {
    const clientId = `${documents.origin}/refused.json`;
    const impostor = `${documents.origin}/impostor.json`;
    documents.serve('/refused.json', (_request, response) => response.writeHead(404, { 'cache-control': 'max-age=0' }).end());
    documents.serve('/impostor.json', json({ client_id: 'https://other.example/client.json', redirect_uris: [CALLBACK] }));
    expect(await known(clientId)).toBe(false);
    expect(await known(impostor)).toBe(false);
    server.clock.advance(10);
    // The document is fine by now, but the refusal still stands: no fetch, and the log line says why.
    documents.serve('/refused.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }));
    expect(await known(clientId)).toBe(false);
    expect(log.lines.at(-1)).toMatchObject({
      event: 'client_metadata_document.refused',
      clientId,
      reason: 'refused within the last 30 s (the URL answered status 404), not fetched again yet',
    });
    expect(await known(impostor)).toBe(false);
    expect(log.lines.at(-1)).toMatchObject({
      clientId: impostor,
      reason: 'refused within the last 30 s (its client_id is not the URL it was fetched from), not fetched again yet',
    });
    expect(fetchesOf('/refused.json')).toBe(1);
    expect(fetchesOf('/impostor.json')).toBe(1);

    server.clock.advance(21);
    expect(await known(clientId)).toBe(true);
    expect(await known(impostor)).toBe(false);
    expect(fetchesOf('/refused.json')).toBe(2);
    expect(fetchesOf('/impostor.json')).toBe(2);
  });

  it('the refusal is remembered per instance: another instance on the same database fetches for itself', async () => {
    const clientId = `${documents.origin}/gone.json`;
    expect(await known(clientId)).toBe(false);
    expect(await known(clientId)).toBe(false);
    expect(fetchesOf('/gone.json')).toBe(1);
    const other = await cimd.instance();
    expect(await cimd.tokenError(clientId, other)).toBe('invalid_client');
    expect(fetchesOf('/gone.json')).toBe(2);
  });

  it("an admin's approval stays while the refetched document keeps its redirect URIs and name, and is cleared when either changes", async () => {
    const clientId = `${documents.origin}/approved.json`;
    const second = 'https://client.example.com/second';
    const serve = (document: Record<string, unknown>) =>
      documents.serve('/approved.json', json({ client_id: clientId, ...document }, { 'cache-control': 'max-age=60' }));
    const approvedAt = () => server.deps.stores.applications.findByUid(clientId).then((row) => row!.approvedAt);
    const approve = async () => {
      const row = await server.deps.stores.applications.findByUid(clientId);
      await server.deps.stores.applicationAdmin.update(row!.id, { approvedAt: server.clock.now });
      return approvedAt();
    };
    const refetch = async () => {
      server.clock.advance(61);
      expect(await known(clientId)).toBe(true);
    };

    serve({ client_name: 'Approved', redirect_uris: [CALLBACK, second] });
    expect(await known(clientId)).toBe(true);
    const approval = await approve();
    expect(approval).toBeInstanceOf(Date);

    // The same redirect URIs (in another order) and name, other metadata changed: the approval stands.
    serve({ client_name: 'Approved', redirect_uris: [second, CALLBACK], client_uri: 'https://client.example.com/', software_version: '2' });
    await refetch();
    expect(await approvedAt()).toEqual(approval);

    const before = log.lines.length;
    serve({ client_name: 'Approved', redirect_uris: [CALLBACK, 'https://attacker.example/cb'] });
    await refetch();
    expect(await approvedAt()).toBeNull();
    expect(log.lines.slice(before)).toContainEqual(
      expect.objectContaining({ level: 40, event: 'client_metadata_document.approval_withdrawn', clientId, changed: ['redirect_uris'] }),
    );

    await approve();
    serve({ client_name: 'Approved by the admin', redirect_uris: [CALLBACK, 'https://attacker.example/cb'] });
    await refetch();
    expect(await approvedAt()).toBeNull();
    expect(log.lines.at(-1)).toMatchObject({ event: 'client_metadata_document.approval_withdrawn', changed: ['client_name'] });
    expect(fetchesOf('/approved.json')).toBe(4);
  });

  it('an application the admin disabled stays disabled when its document is fetched again', async () => {
    const clientId = `${documents.origin}/disabled.json`;
    documents.serve('/disabled.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }, { 'cache-control': 'max-age=60' }));
    expect(await redirectAccepted(clientId, CALLBACK)).toBe(true);
    const row = await server.deps.stores.applications.findByUid(clientId);
    const disabledAt = server.clock.now;
    await server.deps.stores.applicationAdmin.update(row!.id, { disabledAt });
    server.clock.advance(61);
    expect(await redirectAccepted(clientId, CALLBACK)).toBe(false);
    expect(fetchesOf('/disabled.json')).toBe(2);
    expect((await server.deps.stores.applications.findByUid(clientId))!.disabledAt).toEqual(disabledAt);
  });

  it('a second instance on the same database uses the row the first one made, without fetching', async () => {
    const clientId = `${documents.origin}/shared.json`;
    documents.serve('/shared.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }, { 'cache-control': 'max-age=600' }));
    expect(await known(clientId)).toBe(true);
    const other = await cimd.instance();
    expect(await cimd.tokenError(clientId, other)).toBe('invalid_grant');
    expect(fetchesOf('/shared.json')).toBe(1);
  });

  it('concurrent lookups of one URL share one fetch', async () => {
    const clientId = `${documents.origin}/busy.json`;
    documents.serve('/busy.json', (request, response) =>
      setTimeout(() => json({ client_id: clientId, redirect_uris: [CALLBACK] }, { 'cache-control': 'no-cache' })(request, response), 200),
    );
    const answers = await Promise.all(Array.from({ length: 5 }, () => known(clientId)));
    expect(answers).toEqual([true, true, true, true, true]);
    expect(fetchesOf('/busy.json')).toBe(1);
  });
});
