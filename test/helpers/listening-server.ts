import { createServer as createHttpServer } from 'node:http';
import { freePort } from '../../scripts/lib/ports.js';
import type { ConfigInput } from '../../src/config/types.js';
import { buildTestServer, type TestServer, type TestServerOptions } from './test-server.js';

/**
 * A test server listening on 127.0.0.1 with baseUrl set to its own address, so that `iss` (RFC 9207) and
 * every link match what a browser and a client library see.
 */
export async function listeningTestServer(
  config: ConfigInput & Record<string, unknown> = {},
  {
    env,
    clientMetadataDocumentCa,
    logStream,
    port: chosenPort,
  }: Pick<TestServerOptions, 'env' | 'clientMetadataDocumentCa' | 'logStream'> & {
    /** A port reserved before (freePort), when another party must know the address first (an upstream's redirect URIs). */
    port?: number;
  } = {},
): Promise<TestServer & { baseUrl: string }> {
  const port = chosenPort ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await buildTestServer({ config: { ...config, baseUrl }, env, clientMetadataDocumentCa, logStream });
  await server.app.listen({ port, host: '127.0.0.1' });
  return Object.assign(server, { baseUrl });
}

export interface ClientCallback {
  /** The redirection endpoint, e.g. http://127.0.0.1:5555/callback (loopback http is registrable). */
  url: string;
  /** Every request received: method, full URL, and the form body of a POST (form_post). */
  requests: Array<{ method: string; url: string; body: string }>;
  close(): Promise<void>;
}

/** A client's redirection endpoint on loopback, so a browser can really arrive there. */
export async function clientCallbackServer(): Promise<ClientCallback> {
  const requests: ClientCallback['requests'] = [];
  const server = createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', url: `${url.origin}${request.url ?? ''}`, body });
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Client</title><h1>Client callback</h1>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/callback`);
  return {
    url: url.href,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
