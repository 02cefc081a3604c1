import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CALLBACK, documentFixture, json, type DocumentFixture, type DocumentServer } from '../helpers/client-metadata-document-server.js';
import { authorizeUrl } from '../helpers/end-user.js';
import { TEXT } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// GET /oauth/authorize with a client_id URL whose Client ID Metadata Document was refused: RFC 6749 section
// 4.1.2.1 keeps it an error page on this server (never a redirect to an unverified client), and the page says in
// plain words what was wrong with the document, so its publisher can fix it, without what only the operator may
// see (addresses a host resolved to, system error codes: those stay in the log line).

describe(`GET /oauth/authorize names why a client metadata document was refused (${backend})`, () => {
  let cimd: DocumentFixture;
  let server: TestServer;
  let production: TestServer;
  let documents: DocumentServer;
  let log: DocumentFixture['log'];
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    cimd = await documentFixture({ settings: { timeoutMs: 20_000, maxBytes: 1024 } });
    ({ server, documents, log } = cimd);
    production = await cimd.instance({ allowPrivateAddresses: false });
  });
  afterAll(async () => {
    for (const response of held.splice(0)) response.destroy();
    await cimd?.close();
  });

  const urlOf = (path: string) => cimd.urlOf(path);
  const document = (path: string, extra: Record<string, unknown> = {}) => cimd.document(path, extra);

  /** The authorization page for `clientId`: an error page, never a redirect; returns its text. */
  async function errorPage(clientId: string, on: TestServer = server, redirectUri = CALLBACK, status = 401): Promise<string> {
    const page = await on.app.inject({
      method: 'GET',
      url: authorizeUrl({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', state: 'xyz' }),
    });
    expect(page.headers.location).toBeUndefined();
    expect(page.statusCode).toBe(status);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    return page.body;
  }

  it('a document the URL does not serve (404)', async () => {
    expect(await errorPage(urlOf('/missing.json'))).toContain(
      `The application&#39;s metadata document at ${urlOf('/missing.json')} could not be used: the URL answered status 404.`,
    );
  });

  it('a document larger than maxBytes, one that is not JSON, and one whose client_id is another URL', async () => {
    documents.serve('/huge.json', json(document('/huge.json', { padding: 'x'.repeat(2000) })));
    documents.serve('/broken.json', (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id":'),
    );
    documents.serve('/other.json', json(document('/other.json', { client_id: urlOf('/elsewhere.json') })));
    expect(await errorPage(urlOf('/huge.json'))).toContain('could not be used: the document is larger than 1024 bytes.');
    expect(await errorPage(urlOf('/broken.json'))).toContain('could not be used: the document is not valid JSON.');
    expect(await errorPage(urlOf('/other.json'))).toContain('could not be used: its client_id is not the URL it was fetched from.');
  });

  it('a reason naming a value from the document is escaped', async () => {
    documents.serve('/script.json', json(document('/script.json', { token_endpoint_auth_method: '<script>alert(1)</script>' })));
    const page = await errorPage(urlOf('/script.json'));
    expect(page).toContain('could not be used: token_endpoint_auth_method is not none or private_key_jwt.');
    expect(page).not.toContain('<script>');
  });

  it('a refusal remembered for 30 seconds is explained again, and says when it is fetched again', async () => {
    documents.serve('/gone.json', (_request, response) => response.writeHead(410).end());
    expect(await errorPage(urlOf('/gone.json'))).toContain('could not be used: the URL answered status 410.');
    const fetches = documents.requests.length;
    expect(await errorPage(urlOf('/gone.json'))).toContain(
      'could not be used: the URL answered status 410. It is fetched again at most every 30 seconds.',
    );
    expect(documents.requests.length).toBe(fetches);
  });

  it('a client_id URL this server never fetches says what is wrong with the URL', async () => {
    expect(await errorPage(`${documents.origin}/`)).toContain(
      'The client_id is a URL, but not one this server fetches application metadata from: it has no path.',
    );
    expect(await errorPage(`${documents.origin}/a/../client.json`)).toContain('it is not in normalised form');
  });

  it('a host that refuses the connection: said in words, without the system error code', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const page = await errorPage(`http://127.0.0.1:${port}/client.json`);
    expect(page).toContain('could not be used: its host refused the connection.');
    expect(page).not.toContain('ECONNREFUSED');
    expect(log.lines.at(-1)).toMatchObject({ event: 'client_metadata_document.refused', reason: 'the fetch failed (ECONNREFUSED)' });
  });

  it('a host name resolving to an internal address: "address not allowed", never the address it resolved to', async () => {
    const clientId = `https://localhost:${new URL(documents.origin).port}/client.json`;
    const page = await errorPage(clientId, production);
    expect(page).toContain('could not be used: its host is at an address this server does not fetch from (address not allowed).');
    expect(page).not.toMatch(/127\.0\.0\.1|::1|loopback/);
  });

  it("a redirect_uri the document does not list: the page says it is not among the document's redirect_uris", async () => {
    documents.serve('/listed.json', json(document('/listed.json'), { 'cache-control': 'max-age=300' }));
    const page = await errorPage(urlOf('/listed.json'), server, 'https://evil.example/cb', 400);
    expect(page).toContain(
      `The redirect_uri is not one of the redirect_uris of the application&#39;s metadata document at ${urlOf('/listed.json')}.`,
    );
  });

  it('no free fetch slot for the host: the page says the server is busy, to try again in a moment', async () => {
    for (let index = 0; index < 5; index += 1) documents.serve(`/slow-${index}.json`, (_request, response) => void held.push(response));
    const slow = Array.from({ length: 4 }, (_, index) => errorPage(urlOf(`/slow-${index}.json`)).catch(() => ''));
    await vi.waitFor(() => expect(held).toHaveLength(4), { timeout: 10_000, interval: 20 });
    expect(await errorPage(urlOf('/slow-4.json'))).toContain(
      'This server is already fetching as many application metadata documents as it allows at once, so it did not fetch ' +
        'this application&#39;s. Try again in a moment.',
    );
    for (const response of held.splice(0)) response.destroy();
    await Promise.all(slow);
  });

  it('a client_id that is not a URL keeps the unknown-client text of RFC 6749', async () => {
    expect(await errorPage('no-such-client')).toContain(TEXT.invalidClient);
  });
});
