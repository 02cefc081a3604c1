import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  documentServer,
  documentSettings,
  json,
  logLines,
  selfSignedCertificate,
  type DocumentServer,
} from '../helpers/client-metadata-document-server.js';
import { expectOAuthError, TEXT, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Client ID Metadata Documents over https, and the SSRF rules: with allowPrivateAddresses false (production) a
// document on loopback, private or link-local addresses is refused before any connection, whether the URL names
// the address or a host name resolving to it. The https document server uses a self-signed certificate made with
// openssl, trusted through buildServer's clientMetadataDocumentCa (operators: NODE_EXTRA_CA_CERTS).

const CALLBACK = 'https://client.example.com/callback';

describe(`Client ID Metadata Documents: https and address checks (${backend})`, () => {
  const tls = selfSignedCertificate();
  let secure: DocumentServer;
  let plain: DocumentServer;
  let production: TestServer;
  let development: TestServer;
  let untrusting: TestServer;
  const log = logLines();
  const config = (allowPrivateAddresses: boolean) => ({
    log: { level: 'warn' as const, format: 'json' as const },
    rateLimit: { maxFailures: 1000 },
    registration: { clientIdMetadataDocuments: documentSettings({ allowPrivateAddresses }) },
  });

  beforeAll(async () => {
    secure = await documentServer(tls);
    plain = await documentServer();
    production = await buildTestServer({ config: config(false), logStream: log.stream, clientMetadataDocumentCa: tls.cert });
    const shared = { testDatabase: production.testDatabase, logStream: log.stream };
    development = await buildTestServer({ ...shared, config: config(true), clientMetadataDocumentCa: tls.cert });
    untrusting = await buildTestServer({ ...shared, config: config(true) });
  });
  afterAll(async () => {
    await untrusting.close();
    await development.close();
    await production.close();
    await secure.close();
    await plain.close();
  });

  const exchange = (server: TestServer, clientId: string) =>
    tokenRequest(server.app, {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    });

  async function expectRefused(server: TestServer, clientId: string): Promise<string> {
    const before = log.lines.length;
    expectOAuthError(await exchange(server, clientId), 401, 'invalid_client', TEXT.invalidClient);
    const line = log.lines.slice(before).find((entry) => entry.event === 'client_metadata_document.refused');
    expect(line).toMatchObject({ level: 40, clientId });
    return String(line!.reason);
  }

  it('an https document with a trusted certificate becomes a client (the code is then what fails: invalid_grant)', async () => {
    const clientId = `${secure.origin}/dev/client.json`;
    secure.serve('/dev/client.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }));
    const response = await exchange(development, clientId);
    expect(response.json().error).toBe('invalid_grant');
    expect(secure.requests).toContain('/dev/client.json');
  });

  it('an https document whose certificate is not trusted is refused', async () => {
    const clientId = `${secure.origin}/untrusted/client.json`;
    secure.serve('/untrusted/client.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }));
    expect(await expectRefused(untrusting, clientId)).toBe('the fetch failed (DEPTH_ZERO_SELF_SIGNED_CERT)');
  });

  describe('with allowPrivateAddresses false, nothing internal is ever connected to', () => {
    let requestsBefore: number;
    beforeAll(() => {
      requestsBefore = secure.requests.length + plain.requests.length;
      const port = new URL(secure.origin).port;
      for (const path of ['/client.json', '/mapped.json']) {
        secure.serve(path, json({ client_id: `https://127.0.0.1:${port}${path}`, redirect_uris: [CALLBACK] }));
      }
    });
    afterAll(() => expect(secure.requests.length + plain.requests.length).toBe(requestsBefore));

    it('an IP-literal loopback host', async () => {
      const port = new URL(secure.origin).port;
      expect(await expectRefused(production, `https://127.0.0.1:${port}/client.json`)).toBe('the address 127.0.0.1 is loopback');
    });

    it('the cloud metadata address 169.254.169.254 and other internal ranges', async () => {
      expect(await expectRefused(production, 'https://169.254.169.254/latest/meta-data')).toBe('the address 169.254.169.254 is link-local');
      expect(await expectRefused(production, 'https://10.1.2.3/client.json')).toBe('the address 10.1.2.3 is private');
      expect(await expectRefused(production, 'https://100.64.0.1/client.json')).toBe(
        'the address 100.64.0.1 is shared address space (CGNAT)',
      );
      expect(await expectRefused(production, 'https://[fd00::1]/client.json')).toBe('the address fd00::1 is unique local');
    });

    it('an IPv4-mapped IPv6 loopback address', async () => {
      const port = new URL(secure.origin).port;
      expect(await expectRefused(production, `https://[::ffff:7f00:1]:${port}/mapped.json`)).toBe(
        'the address ::ffff:7f00:1 is IPv4-mapped loopback',
      );
    });

    it('a host name that resolves to 127.0.0.1 (localhost)', async () => {
      const clientId = `${secure.origin}/prod/client.json`;
      secure.serve('/prod/client.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }));
      expect(await expectRefused(production, clientId)).toBe('the host localhost resolves to 127.0.0.1, which is loopback');
      // Remembered: the next lookup within 30 seconds does not even resolve the name again.
      expect(await expectRefused(production, clientId)).toBe(
        'refused within the last 30 s (the host localhost resolves to 127.0.0.1, which is loopback), not fetched again yet',
      );
    });

    it('an http URL', async () => {
      const clientId = `${plain.origin}/client.json`;
      plain.serve('/client.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }));
      expect(await expectRefused(production, clientId)).toBe('the client_id is not an https URL');
    });
  });
});
