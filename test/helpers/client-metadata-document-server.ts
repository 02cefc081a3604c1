import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Config } from '../../src/config/types.js';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { authorizeUrl } from './end-user.js';
import { expectOAuthError, TEXT, tokenRequest } from './oauth-requests.js';
import { capturedLogLines, type CapturedLogLines } from './log-lines.js';
import { buildTestServer, type TestServer, type TestServerOptions } from './test-server.js';

type DocumentSettings = Partial<Config['registration']['clientIdMetadataDocuments']>;

/**
 * config registration.clientIdMetadataDocuments for tests: on, (development) private addresses allowed, and the
 * per-address limit of first fetches out of the way, since every injected request comes from 127.0.0.1 (tests of
 * that limit set it).
 */
export function documentSettings(overrides: DocumentSettings = {}) {
  return {
    enabled: true,
    allowPrivateAddresses: true,
    maxBytes: 5120,
    timeoutMs: 5000,
    maxCacheSeconds: 86400,
    firstFetchesPerAddressPerMinute: 1000,
    maxClients: 1000,
    ...overrides,
  };
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

/** The redirect URI of the fixture's documents. */
export const CALLBACK = 'https://client.example.com/callback';
/** A well-formed PKCE verifier: the token requests below fail on the client or the made-up code, never on it. */
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

/** GET /oauth/authorize for a code with PKCE (S256): the request stands or falls by the client and its redirect URI. */
export const pkceAuthorizeUrl = (parameters: Record<string, string>) =>
  authorizeUrl({ ...parameters, response_type: 'code', code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' });

export interface DocumentFixtureOptions {
  /** clientIdMetadataDocuments settings over documentSettings()'s. */
  settings?: DocumentSettings;
  /** More config for the test server and every other instance (registration is the fixture's: see settings). */
  config?: TestServerOptions['config'];
  /** How the test server is built (openIdServer for OpenID tests); buildTestServer by default. */
  build?: (options: TestServerOptions) => Promise<TestServer>;
  /** Serve the documents over https with this certificate, which the server then trusts. */
  tls?: { key: string; cert: string };
}

/** A document server and a test server that fetches from it, with the requests every CIMD test makes. */
export interface DocumentFixture {
  server: TestServer;
  documents: DocumentServer;
  /** The warn log lines of the server and of every other instance (each refusal says why there). */
  log: CapturedLogLines;
  /** The client_id URL of a path on the document server. */
  urlOf(path: string): string;
  /** A valid document for `path`: its own URL as client_id, CALLBACK as redirect URI, and `extra`. */
  document(path: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** The error of a code exchange for this client_id with a made-up code: invalid_client when it is no client. */
  tokenError(clientId: string, on?: TestServer): Promise<string>;
  /** Whether the server (or `on`) takes the URL as a client: the code, not the client, is what fails. */
  known(clientId: string, on?: TestServer): Promise<boolean>;
  /** Expects the token endpoint to refuse the client_id as an unknown client; the reason its log line gives. */
  refusal(clientId: string, on?: TestServer): Promise<string>;
  /** Another instance on the same database, with these settings over the fixture's; closed with the fixture. */
  instance(settings?: DocumentSettings, options?: Pick<TestServerOptions, 'clientMetadataDocumentCa'>): Promise<TestServer>;
  close(): Promise<void>;
}

/** What a CIMD test needs: documents on loopback, a server with warn logs as JSON and rate limits out of the way. */
export async function documentFixture({
  settings = {},
  config = {},
  build = buildTestServer,
  tls,
}: DocumentFixtureOptions = {}): Promise<DocumentFixture> {
  const documents = await documentServer(tls);
  const log = capturedLogLines();
  const configWith = (overrides: DocumentSettings) => ({
    log: { level: 'warn' as const, format: 'json' as const },
    rateLimit: { maxFailures: 1000 },
    ...config,
    registration: { clientIdMetadataDocuments: documentSettings({ ...settings, ...overrides }) },
  });
  const instances: TestServer[] = [];
  const close = async () => {
    for (const instance of instances.reverse()) await instance.close();
    await documents.close();
  };
  try {
    const server = await build({ config: configWith({}), logStream: log.stream, clientMetadataDocumentCa: tls?.cert });
    instances.push(server);
    const urlOf = (path: string) => `${documents.origin}${path}`;
    const exchange = (clientId: string, on: TestServer) =>
      tokenRequest(on.app, {
        grant_type: 'authorization_code',
        code: 'x',
        redirect_uri: CALLBACK,
        client_id: clientId,
        code_verifier: VERIFIER,
      });
    const tokenError = async (clientId: string, on = server) => String((await exchange(clientId, on)).json().error);
    return {
      server,
      documents,
      log,
      urlOf,
      document: (path, extra = {}) => ({ client_id: urlOf(path), redirect_uris: [CALLBACK], ...extra }),
      tokenError,
      known: async (clientId, on) => (await tokenError(clientId, on)) !== 'invalid_client',
      async refusal(clientId, on = server) {
        const before = log.lines.length;
        expectOAuthError(await exchange(clientId, on), 401, 'invalid_client', TEXT.invalidClient);
        const line = log.lines.slice(before).find((entry) => entry.event === 'client_metadata_document.refused');
        expect(line).toMatchObject({ level: 40, clientId });
        return String(line!.reason);
      },
      async instance(overrides = {}, options = {}) {
        const instance = await buildTestServer({
          ...options,
          testDatabase: server.testDatabase,
          config: configWith(overrides),
          logStream: log.stream,
        });
        instances.push(instance);
        return instance;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
