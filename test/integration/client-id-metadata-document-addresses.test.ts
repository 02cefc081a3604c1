import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CALLBACK,
  documentFixture,
  documentServer,
  json,
  selfSignedCertificate,
  type DocumentFixture,
  type DocumentServer,
} from '../helpers/client-metadata-document-server.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Client ID Metadata Documents over https, and the SSRF rules: with allowPrivateAddresses false (production) a
// document on loopback, private or link-local addresses is refused before any connection, whether the URL names
// the address or a host name resolving to it. The https document server uses a self-signed certificate made with
// openssl, trusted through buildServer's clientMetadataDocumentCa (operators: NODE_EXTRA_CA_CERTS).

describe(`Client ID Metadata Documents: https and address checks (${backend})`, () => {
  const tls = selfSignedCertificate();
  let cimd: DocumentFixture;
  let secure: DocumentServer;
  let plain: DocumentServer;
  let production: TestServer;
  let development: TestServer;
  let untrusting: TestServer;

  beforeAll(async () => {
    cimd = await documentFixture({ tls, settings: { allowPrivateAddresses: false } });
    ({ server: production, documents: secure } = cimd);
    plain = await documentServer();
    development = await cimd.instance({ allowPrivateAddresses: true }, { clientMetadataDocumentCa: tls.cert });
    untrusting = await cimd.instance({ allowPrivateAddresses: true });
  });
  afterAll(async () => {
    await cimd?.close();
    await plain?.close();
  });

  const expectRefused = (server: TestServer, clientId: string) => cimd.refusal(clientId, server);

  it('an https document with a trusted certificate becomes a client (the code is then what fails: invalid_grant)', async () => {
    const clientId = `${secure.origin}/dev/client.json`;
    secure.serve('/dev/client.json', json({ client_id: clientId, redirect_uris: [CALLBACK] }));
    expect(await cimd.tokenError(clientId, development)).toBe('invalid_grant');
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

    it('issue 29 item 8 (RFC 8215, RFC 2765 section 2.1, RFC 4380): local-use NAT64, IPv4-translated and Teredo addresses', async () => {
      const port = new URL(secure.origin).port;
      const cases: Array<[string, string]> = [
        ['64:ff9b:1::a00:1', 'local-use NAT64'],
        ['::ffff:0:7f00:1', 'IPv4-translated loopback'],
        ['::ffff:0:a9fe:a9fe', 'IPv4-translated link-local'],
        ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
      ];
      for (const [address, reason] of cases) {
        const clientId = `https://[${address}]:${port}/client.json`;
        expect(await expectRefused(production, clientId)).toBe(`the address ${address} is ${reason}`);
        expect(await cimd.tokenError(clientId)).toBe('invalid_client');
      }
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
