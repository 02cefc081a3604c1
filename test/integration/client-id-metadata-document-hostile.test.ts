import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK, documentFixture, json, type DocumentFixture, type DocumentServer } from '../helpers/client-metadata-document-server.js';
import { authorizeUrl } from '../helpers/end-user.js';
import { expectOAuthError, TEXT, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Client ID Metadata Documents that must not become clients: slow, huge, redirecting, malformed, or lying about
// themselves. Each ends like an unknown client (invalid_client at the token endpoint, the error page at
// /oauth/authorize) with a warn log line that says why. Documents over http on loopback (allowPrivateAddresses).

describe(`Client ID Metadata Documents refused: hostile and malformed documents (${backend})`, () => {
  let cimd: DocumentFixture;
  let server: TestServer;
  let documents: DocumentServer;
  let log: DocumentFixture['log'];

  beforeAll(async () => {
    cimd = await documentFixture({ settings: { timeoutMs: 500, maxBytes: 1024 } });
    ({ server, documents, log } = cimd);
  });
  afterAll(async () => {
    await cimd?.close();
  });

  const urlOf = (path: string) => cimd.urlOf(path);
  const valid = (path: string, extra: Record<string, unknown> = {}) => cimd.document(path, extra);
  /** The token endpoint answers invalid_client for the URL client_id; returns the logged reason. */
  const expectRefused = (path: string) => cimd.refusal(urlOf(path));

  it('a body dripped slower than timeoutMs is cut off at the deadline', async () => {
    documents.serve('/slow', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => (response.destroyed ? clearInterval(drip) : response.write(' ')), 50);
      response.on('close', () => clearInterval(drip));
    });
    const started = Date.now();
    expect(await expectRefused('/slow')).toBe('no complete answer within 500 ms');
    // Endless without the deadline: the bound only has to tell a cut-off from a hang, with room for a busy CI machine.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('an answer whose headers never come is cut off at the deadline', async () => {
    documents.serve('/silent', () => undefined);
    expect(await expectRefused('/silent')).toBe('no complete answer within 500 ms');
  });

  it('a document larger than maxBytes is refused by its Content-Length', async () => {
    documents.serve('/huge', json(valid('/huge', { padding: 'x'.repeat(2000) })));
    expect(await expectRefused('/huge')).toBe('the document is larger than 1024 bytes');
  });

  it('a chunked document without Content-Length is cut off once it passes maxBytes, not read to the end', async () => {
    let sent = 0;
    documents.serve('/endless', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (!response.destroyed && sent < 50_000_000) {
          sent += 16384;
          if (!response.write('x'.repeat(16384))) return response.once('drain', pump);
        }
        return response.end();
      };
      pump();
    });
    expect(await expectRefused('/endless')).toBe('the document is larger than 1024 bytes');
    expect(sent).toBeLessThan(50_000_000);
  });

  it('a redirect is not followed, to another host or to loopback', async () => {
    documents.serve('/target', json(valid('/moved')));
    documents.serve('/moved', (_request, response) => response.writeHead(302, { location: urlOf('/target') }).end());
    documents.serve('/away', (_request, response) => response.writeHead(301, { location: 'https://other.example/client.json' }).end());
    const before = documents.requests.length;
    expect(await expectRefused('/moved')).toBe('the URL answered a redirect (302); the document must be at the client_id URL itself');
    expect(await expectRefused('/away')).toBe('the URL answered a redirect (301); the document must be at the client_id URL itself');
    expect(documents.requests.slice(before)).toEqual(['/moved', '/away']);
  });

  it('status other than 200, a media type other than application/json, invalid JSON and non-objects are refused', async () => {
    documents.serve('/missing', (_request, response) => response.writeHead(404).end());
    documents.serve('/html', (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hi</h1>'));
    documents.serve('/broken', (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id":'),
    );
    documents.serve('/array', json([valid('/array')]));
    expect(await expectRefused('/missing')).toBe('the URL answered status 404');
    expect(await expectRefused('/html')).toBe('the answer is not application/json');
    expect(await expectRefused('/broken')).toBe('the document is not valid JSON');
    expect(await expectRefused('/array')).toBe('the document is not a JSON object');
  });

  it('a document whose client_id is not its own URL is refused', async () => {
    documents.serve('/impostor', json(valid('/impostor', { client_id: 'https://trusted.example/client.json' })));
    documents.serve('/trailing', json(valid('/trailing', { client_id: `${urlOf('/trailing')}/` })));
    expect(await expectRefused('/impostor')).toBe('its client_id is not the URL it was fetched from');
    expect(await expectRefused('/trailing')).toBe('its client_id is not the URL it was fetched from');
  });

  it('a client_secret or a shared-secret authentication method is refused: the client is public', async () => {
    documents.serve('/secret', json(valid('/secret', { client_secret: 'hunter2' })));
    documents.serve('/basic', json(valid('/basic', { token_endpoint_auth_method: 'client_secret_basic' })));
    documents.serve('/jwt', json(valid('/jwt', { token_endpoint_auth_method: 'private_key_jwt' })));
    expect(await expectRefused('/secret')).toBe('it holds a client_secret');
    expect(await expectRefused('/basic')).toBe('token_endpoint_auth_method client_secret_basic needs a shared secret');
    expect(await expectRefused('/jwt')).toBe('The private_key_jwt method needs the public keys: jwks or jwks_uri.');
    expect(JSON.stringify(log.lines)).not.toContain('hunter2');
  });

  // Stored as U+FFFD (a name silently changed), or, with a NUL, not stored at all (a 500).
  it('text with a NUL or an unpaired surrogate is refused', async () => {
    documents.serve('/surrogate', json(valid('/surrogate', { client_name: 'a\ud800b' })));
    documents.serve('/nul', json(valid('/nul', { client_uri: 'https://client.example.com/\u0000' })));
    for (const path of ['/surrogate', '/nul'])
      expect(await expectRefused(path)).toBe('its text must not hold a NUL character or an unpaired UTF-16 surrogate');
  });

  it("redirect_uris is required and each must be acceptable; grants are the code flow's, each refused by name", async () => {
    documents.serve('/no-redirects', json({ client_id: urlOf('/no-redirects') }));
    documents.serve('/script', json(valid('/script', { redirect_uris: ['javascript:alert(1)'] })));
    documents.serve('/plain-http', json(valid('/plain-http', { redirect_uris: ['http://client.example.com/cb'] })));
    documents.serve('/credentials', json(valid('/credentials', { grant_types: ['client_credentials'] })));
    const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
    documents.serve('/device', json(valid('/device', { grant_types: ['authorization_code', deviceGrant] })));
    expect(await expectRefused('/no-redirects')).toBe('redirect_uris is missing');
    expect(await expectRefused('/script')).toBe('redirect_uris: a redirect URI is not acceptable');
    expect(await expectRefused('/plain-http')).toBe('redirect_uris: http is for loopback redirect URIs only');
    expect(await expectRefused('/credentials')).toBe(
      'grant_types: client_credentials is not one a metadata document may list (authorization_code and refresh_token)',
    );
    expect(await expectRefused('/device')).toBe(
      `grant_types: ${deviceGrant} is not one a metadata document may list (authorization_code and refresh_token)`,
    );
  });

  it.each([
    ['/method-number', { token_endpoint_auth_method: 5 }, 'token_endpoint_auth_method is not a string'],
    ['/method-tls', { token_endpoint_auth_method: 'tls_client_auth' }, 'token_endpoint_auth_method is not none or private_key_jwt'],
    ['/redirects-empty', { redirect_uris: [] }, 'redirect_uris is empty'],
    ['/redirects-string', { redirect_uris: CALLBACK }, 'redirect_uris is not an array of strings'],
    ['/redirects-numbers', { redirect_uris: [CALLBACK, 7] }, 'redirect_uris is not an array of strings'],
    // RFC 8252 section 7.1: a private-use scheme is a reverse domain name.
    ['/private-scheme', { redirect_uris: ['myapp:/callback'] }, 'redirect_uris: a redirect URI is not acceptable'],
    ['/grants-string', { grant_types: 'authorization_code' }, 'grant_types is not an array of strings'],
    ['/implicit', { response_types: ['token'] }, 'response_types holds a type other than code'],
    ['/application-type', { application_type: 'desktop' }, 'application_type is not web or native'],
    ['/scope-list', { scope: ['read'] }, 'scope is not scope tokens separated by spaces'],
    ['/scope-quote', { scope: 'read "write"' }, 'scope is not scope tokens separated by spaces'],
    ['/jwks-uri-number', { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 5 }, 'jwks_uri is not a string'],
  ])('a document with %s is refused, saying which field is wrong', async (path, fields, reason) => {
    documents.serve(path, json(valid(path, fields)));
    expect(await expectRefused(path)).toBe(reason);
  });

  it('a reverse-domain private-use scheme and http to any loopback host are accepted, as at /oauth/register', async () => {
    const redirectUris = ['com.example.app:/callback', 'http://127.0.0.2:8080/cb', 'http://[::1]/cb', 'http://localhost/cb'];
    documents.serve('/native', json(valid('/native', { redirect_uris: redirectUris, application_type: 'native' })));
    expect(await cimd.known(urlOf('/native'))).toBe(true);
  });

  it('GET /oauth/authorize shows the error page saying why, without the document text, and never redirects', async () => {
    documents.serve('/hostile', json(valid('/hostile', { client_id: '<script>alert(1)</script>', client_name: '<script>x</script>' })));
    const page = await server.app.inject({
      method: 'GET',
      url: authorizeUrl({ client_id: urlOf('/hostile'), redirect_uri: CALLBACK, response_type: 'code' }),
    });
    expect(page.statusCode).toBe(401);
    expect(page.headers.location).toBeUndefined();
    expect(page.body).toContain('its client_id is not the URL it was fetched from');
    expect(page.body).not.toContain('<script>');
  });

  it('a client_id URL that is not in normalised form, or has no path, is not fetched', async () => {
    const before = documents.requests.length;
    const odd = `${documents.origin}/a/../client.json`;
    const response = await tokenRequest(server.app, {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: CALLBACK,
      client_id: odd,
    });
    expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
    const bare = await tokenRequest(server.app, {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: CALLBACK,
      client_id: `${documents.origin}/`,
    });
    expectOAuthError(bare, 401, 'invalid_client', TEXT.invalidClient);
    expect(documents.requests.length).toBe(before);
    expect(log.lines.at(-1)).toMatchObject({ event: 'client_metadata_document.refused', reason: 'the client_id has no path' });
  });
});
