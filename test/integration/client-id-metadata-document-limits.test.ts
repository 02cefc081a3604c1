import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CALLBACK,
  documentFixture,
  documentServer,
  type DocumentFixture,
  type DocumentServer,
} from '../helpers/client-metadata-document-server.js';
import { backend } from '../helpers/test-database.js';

// Fetching Client ID Metadata Documents is work any caller can ask for by naming a URL, so an instance runs at
// most 4 fetches to one host and 16 in all at once; a lookup past that fails at once as an unknown client (with a
// warn log line) instead of waiting for a socket. The document servers here hold every answer until the test lets
// them go, like slow hosts, and listen on 127.0.0.1 to 127.0.0.5 to be five hosts.

const WAIT = { timeout: 10_000, interval: 20 };

/** A document host whose answers wait until open() is called. */
interface SlowHost {
  documents: DocumentServer;
  open(): void;
}

function slowHost(documents: DocumentServer): SlowHost {
  let opened = false;
  const waiting: Array<() => void> = [];
  const answer = (path: string, response: ServerResponse) =>
    response
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' })
      .end(JSON.stringify({ client_id: `${documents.origin}${path}`, redirect_uris: [CALLBACK] }));
  for (let index = 0; index < 10; index += 1) {
    const path = `/client-${index}.json`;
    documents.serve(path, (_request, response) => (opened ? answer(path, response) : waiting.push(() => answer(path, response))));
  }
  return {
    documents,
    open() {
      opened = true;
      for (const release of waiting.splice(0)) release();
    },
  };
}

describe(`Client ID Metadata Documents: concurrent fetches per instance are bounded (${backend})`, () => {
  let cimd: DocumentFixture;
  let log: DocumentFixture['log'];
  const hosts: SlowHost[] = [];

  beforeAll(async () => {
    cimd = await documentFixture({ settings: { timeoutMs: 20_000 } });
    log = cimd.log;
    hosts.push(slowHost(cimd.documents));
    for (let index = 2; index <= 5; index += 1) hosts.push(slowHost(await documentServer(undefined, `127.0.0.${index}`)));
  });
  afterAll(async () => {
    for (const host of hosts.slice(1)) await host.documents.close();
    await cimd?.close();
  });

  /** The token endpoint knows the client (the code is then what fails) or answers invalid_client. */
  const known = (clientId: string) => cimd.known(clientId);
  const busyLines = (since: number) =>
    log.lines.slice(since).filter((line) => line.event === 'client_metadata_document.refused' && /in flight/.test(String(line.reason)));
  const requestCount = () => hosts.reduce((sum, host) => sum + host.documents.requests.length, 0);

  it('at most 4 fetches to one host at once: 6 distinct URLs on a slow host make 4 requests, 2 lookups fail at once', async () => {
    const [host] = hosts;
    const urls = Array.from({ length: 6 }, (_, index) => `${host!.documents.origin}/client-${index}.json`);
    const before = log.lines.length;
    const answers = Promise.all(urls.map((url) => known(url)));
    // The two beyond the bound are answered while the four fetches still wait for the slow host.
    await vi.waitFor(() => {
      expect(host!.documents.requests).toHaveLength(4);
      expect(busyLines(before)).toHaveLength(2);
    }, WAIT);
    host!.open();
    const results = await answers;
    expect(results.filter(Boolean)).toHaveLength(4);
    expect(host!.documents.requests).toHaveLength(4);
    expect(busyLines(before)[0]).toMatchObject({
      level: 40,
      reason: '4 document fetches to 127.0.0.1 are already in flight; not fetched now',
    });

    // A lookup turned away for lack of a slot is not remembered as refused: once the slots are free it is fetched.
    const turnedAway = urls.filter((_, index) => !results[index]);
    for (const url of turnedAway) expect(await known(url), url).toBe(true);
    expect(host!.documents.requests).toHaveLength(6);
  });

  it('at most 16 fetches at once in all: 4 URLs on each of 5 slow hosts make 16 requests, 4 lookups fail at once', async () => {
    const others = hosts.slice(1);
    const [first] = hosts;
    // The first host answers at once now, so its 4 other URLs are quick; the other four hosts are slow.
    const urls = [...others, first!].flatMap((host) =>
      Array.from({ length: 4 }, (_, index) => `${host.documents.origin}/client-${index + 6}.json`),
    );
    const requestsBefore = requestCount();
    const before = log.lines.length;
    const slowUrls = urls.slice(0, 16);
    const answers = Promise.all(slowUrls.map((url) => known(url)));
    await vi.waitFor(() => expect(requestCount() - requestsBefore).toBe(16), WAIT);
    // All 16 slots are taken by the slow hosts: a fetch to any host, even a quick one, is refused at once.
    for (const url of urls.slice(16)) expect(await known(url), url).toBe(false);
    expect(busyLines(before)).toHaveLength(4);
    expect(busyLines(before)[0]).toMatchObject({ reason: '16 document fetches are already in flight; not fetched now' });
    expect(requestCount() - requestsBefore).toBe(16);
    for (const host of others) host.open();
    expect(await answers).toEqual(slowUrls.map(() => true));
    for (const url of urls.slice(16)) expect(await known(url), url).toBe(true);
    expect(requestCount() - requestsBefore).toBe(20);
  });
});
