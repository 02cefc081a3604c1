import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK, documentFixture, json, pkceAuthorizeUrl, type DocumentFixture } from '../helpers/client-metadata-document-server.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// draft-ietf-oauth-client-id-metadata-document: how long a fetched document stands for its client (Cache-Control,
// Expires, the 60-second default, the 30-second memory of a refusal) and what a refetch keeps of the admin's
// decisions. The code flow with a document client is in client-id-metadata-document.test.ts.

describe(`Client ID Metadata Documents: caching and refreshing the client (${backend})`, () => {
  let cimd: DocumentFixture;
  let server: TestServer;
  let documents: DocumentFixture['documents'];
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
      url: pkceAuthorizeUrl({ client_id: clientId, redirect_uri: redirectUri }),
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
