import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Config } from '../../src/config/types.js';

/** config registration.clientIdMetadataDocuments for tests: on, and (development) private addresses allowed. */
export function documentSettings(overrides: Partial<Config['registration']['clientIdMetadataDocuments']> = {}) {
  return { enabled: true, allowPrivateAddresses: true, maxBytes: 5120, timeoutMs: 5000, maxCacheSeconds: 86400, ...overrides };
}

/** What a path of the document server answers; the default is the JSON body with status 200. */
export type DocumentHandler = (request: IncomingMessage, response: ServerResponse) => void;

export interface DocumentServer {
  /** http://127.0.0.1:PORT (or the host asked for), or https://localhost:PORT for the https server. */
  origin: string;
  /** Every request path received, in order. */
  requests: string[];
  /** Sets what `path` answers. */
  serve(path: string, handler: DocumentHandler): void;
  close(): Promise<void>;
}

/** A JSON answer with these headers (Cache-Control and the like). */
export const json =
  (body: unknown, headers: Record<string, string> = {}): DocumentHandler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

/**
 * A client's metadata document server on loopback, so tests run against real sockets (over http, or https with
 * `tls`). `host` is another loopback address (127.0.0.2 ...) when a test needs several document hosts.
 */
export async function documentServer(tls?: { key: string; cert: string }, host = '127.0.0.1'): Promise<DocumentServer> {
  const handlers = new Map<string, DocumentHandler>();
  const requests: string[] = [];
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    requests.push(request.url ?? '');
    const handler = handlers.get((request.url ?? '').split('?')[0]!);
    if (handler) handler(request, response);
    else response.writeHead(404).end();
  };
  const server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: tls ? `https://localhost:${port}` : `http://${host}:${port}`,
    requests,
    serve: (path, handler) => handlers.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl for this test run. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Log lines of a test server, parsed (config log: { level: 'warn', format: 'json' }). */
export function logLines(): { stream: Writable; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines };
}
