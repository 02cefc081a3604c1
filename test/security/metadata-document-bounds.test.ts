import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registrationSchema } from '../../src/config/registration-schema.js';
import { documentFixture, json, pkceAuthorizeUrl, CALLBACK, type DocumentFixture } from '../helpers/client-metadata-document-server.js';
import { scrapeMetrics } from '../helpers/metrics-scrape.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 29 item 4: sixty GET /oauth/authorize with client_id=https://.../<random> from one address, without signing
// in, made sixty fetches of URLs the stranger chose and sixty application rows. A first fetch (a client_id URL with no
// stored client) now costs the requester's address one of clientIdMetadataDocuments.firstFetchesPerAddressPerMinute
// (IPv6: its /64), and is made only while fewer than clientIdMetadataDocuments.maxClients live document clients are
// stored; a refused one is neither fetched nor stored, and the page says why. Unused ones expire like every
// self-registered client (unusedClientLifetimeSeconds, 1 hour).

const { firstFetchesPerAddressPerMinute: perAddress } = registrationSchema.properties.clientIdMetadataDocuments.properties;
const ALLOWANCE = perAddress.default;

/** Serves a valid document at /c-0.json ... /c-<count - 1>.json. */
function serveDocuments(cimd: DocumentFixture, count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const path = `/c-${index}.json`;
    cimd.documents.serve(path, json(cimd.document(path)));
    return cimd.urlOf(path);
  });
}

const authorize = (server: TestServer, clientId: string, remoteAddress: string) =>
  server.app.inject({ method: 'GET', url: pkceAuthorizeUrl({ client_id: clientId, redirect_uri: CALLBACK }), remoteAddress });

/** A known client sends an unsigned-in user to the login page; an unknown one gets the error page. */
const known = (response: { statusCode: number; headers: Record<string, unknown> }) =>
  response.statusCode === 302 && String(response.headers.location).startsWith('/login');

async function documentClientRows(server: TestServer): Promise<number> {
  const sql = `SELECT count(*)::int AS count FROM oauth_applications WHERE registered_by = 'metadata_document'`;
  const [row] = await server.app.database.sql.query<{ count: number }>(sql);
  return row!.count;
}

describe(`issue 29 item 4: what a stranger can make this server fetch and store through metadata documents (${backend})`, () => {
  describe('the first fetches of one address', () => {
    let cimd: DocumentFixture;
    let server: TestServer;
    beforeAll(async () => {
      cimd = await documentFixture({ settings: { firstFetchesPerAddressPerMinute: ALLOWANCE } });
      server = cimd.server;
    });
    afterAll(() => cimd?.close());

    it('issue 29 item 4 (RFC 7591 section 3, applied to Client ID Metadata Documents): sixty first fetches from one address make at most the per-address allowance of fetches and rows', async () => {
      expect(ALLOWANCE).toBe(10);
      const urls = serveDocuments(cimd, 61);
      const answers = [];
      for (const url of urls.slice(0, 60)) answers.push(await authorize(server, url, '203.0.113.7'));

      expect(answers.filter(known)).toHaveLength(ALLOWANCE);
      expect(cimd.documents.requests).toHaveLength(ALLOWANCE);
      expect(await documentClientRows(server)).toBe(ALLOWANCE);
      const refused = answers.slice(ALLOWANCE);
      expect(refused.every((answer) => answer.statusCode === 401 && answer.headers.location === undefined)).toBe(true);
      expect(refused[0]!.body).toContain('metadata documents for your network address as it allows in a minute');
      const reasons = cimd.log.lines.filter((line) => line.event === 'client_metadata_document.refused').map((line) => line.reason);
      expect(reasons).toHaveLength(60 - ALLOWANCE);
      expect(reasons[0]).toBe(
        `${ALLOWANCE} first fetches from 203.0.113.7 within a minute, the most clientIdMetadataDocuments.firstFetchesPerAddressPerMinute allows; not fetched`,
      );

      // The clients it did make keep working from that address; another address has its own allowance.
      expect(known(await authorize(server, urls[0]!, '203.0.113.7'))).toBe(true);
      expect(known(await authorize(server, urls[ALLOWANCE]!, '198.51.100.9'))).toBe(true);
      // A minute later the address may make first fetches again.
      server.clock.advance(61);
      expect(known(await authorize(server, urls[60]!, '203.0.113.7'))).toBe(true);
      expect(await documentClientRows(server)).toBe(ALLOWANCE + 2);
    });

    it('issue 29 item 4: an IPv6 client is counted by its /64, at the token endpoint too', async () => {
      const urls = Array.from({ length: ALLOWANCE + 1 }, (_, index) => {
        const path = `/v6-${index}.json`;
        cimd.documents.serve(path, json(cimd.document(path)));
        return cimd.urlOf(path);
      });
      const before = cimd.documents.requests.length;
      for (const [index, url] of urls.slice(0, ALLOWANCE).entries())
        expect(known(await authorize(server, url, `2001:db8:7:7::${index + 1}`))).toBe(true);
      // Another host of the same /64, at the token endpoint: refused, nothing fetched.
      const lastUrl = urls[ALLOWANCE]!;
      const token = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'x',
          redirect_uri: CALLBACK,
          client_id: lastUrl,
        }).toString(),
        remoteAddress: '2001:db8:7:7:ffff::1',
      });
      expect(token.statusCode).toBe(401);
      expect(token.json().error).toBe('invalid_client');
      expect(cimd.documents.requests.length - before).toBe(ALLOWANCE);
    });
  });

  describe('the cap on stored document clients', () => {
    const CAP = 3;
    let cimd: DocumentFixture;
    let server: TestServer;
    beforeAll(async () => {
      cimd = await documentFixture({ settings: { maxClients: CAP } });
      server = cimd.server;
    });
    afterAll(() => cimd?.close());

    it('issue 29 item 4 (RFC 7591 section 3, applied to Client ID Metadata Documents): past maxClients a new client_id URL is neither fetched nor stored, stored ones keep working, and unused ones expire after unusedClientLifetimeSeconds', async () => {
      const urls = serveDocuments(cimd, CAP + 2);
      for (const [index, url] of urls.slice(0, CAP).entries())
        expect(known(await authorize(server, url, `198.51.100.${index + 1}`))).toBe(true);

      const refused = await authorize(server, urls[CAP]!, '198.51.100.50');
      expect(refused.statusCode).toBe(401);
      expect(refused.body).toContain('already holds as many applications from metadata documents as it allows');
      expect(cimd.documents.requests).toHaveLength(CAP);
      expect(await documentClientRows(server)).toBe(CAP);
      expect(await cimd.refusal(urls[CAP]!)).toBe(
        `${CAP} clients from metadata documents are stored, the most clientIdMetadataDocuments.maxClients allows; not fetched`,
      );
      expect(known(await authorize(server, urls[0]!, '198.51.100.50'))).toBe(true);
      expect(await scrapeMetrics(server.app)).toMatch(/^oauth_registration_cap_ratio\{registered_by="metadata_document"\} 1$/m);

      // None of them completed an authorization: an hour later none holds a place, and each is deleted as the next
      // document client is made.
      server.clock.advance(server.config.registration.unusedClientLifetimeSeconds + 1);
      expect(known(await authorize(server, urls[CAP + 1]!, '198.51.100.51'))).toBe(true);
      expect(await documentClientRows(server)).toBe(1);
      // An expired one is a new client again: fetched (a first fetch) and stored anew.
      expect(known(await authorize(server, urls[0]!, '198.51.100.51'))).toBe(true);
      expect(cimd.documents.requests.filter((path) => path === '/c-0.json')).toHaveLength(2);
      expect(await documentClientRows(server)).toBe(2);
    });
  });
});
