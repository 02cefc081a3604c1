import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { ADMIN } from '../integration/applications-support.js';
import { securityServer } from './support.js';

// SPEC 9: oversized bodies, parameters and headers are refused fast with a 4xx (413 body, 431 headers), never a
// 500 and never a hang. Through a real listening socket, because header limits live in Node's HTTP parser.
// Parameter values just under the body limit are in test/integration/rfc6749-malformed-requests.test.ts.

const FAST_MS = 3000;

interface RawResponse {
  status: number;
  text: string;
  ms: number;
}

/** One HTTP/1.1 request on its own loopback socket; resolves when the server closes or answers in full. */
function rawRequest(port: number, head: string, body: Buffer | string = ''): Promise<RawResponse> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text, ms: performance.now() - started });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 10 s: ${head.slice(0, 80)}`));
    }, 10_000);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      const length = /\r\ncontent-length: (\d+)/i.exec(text);
      const bodyStart = text.indexOf('\r\n\r\n');
      if (length && bodyStart >= 0 && text.length - bodyStart - 4 >= Number(length[1])) {
        clearTimeout(timer);
        done();
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      done();
    });
    // The server may answer and close before the whole body is sent: that is the point, not a failure.
    socket.on('error', () => undefined);
    socket.write(head);
    if (body.length > 0) socket.write(body);
  });
}

const request = (method: string, path: string, headers: Record<string, string>, body: Buffer | string = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries({ 'content-length': String(Buffer.byteLength(body)), ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

describe(`RFC 6749 section 10.14, SPEC 9: oversized bodies, parameters and headers (${backend})`, () => {
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    server = await securityServer();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as { port: number }).port;
  });
  afterAll(() => server.close());

  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const megabyte = Buffer.alloc(1 << 20, 'a');
  const tenThousandParameters = Array.from({ length: 10_000 }, (_, i) => `p${i}=${i}`).join('&');

  it.each([
    ['POST /oauth/token', '/oauth/token', form],
    ['POST /oauth/introspect', '/oauth/introspect', form],
    ['POST /oauth/authorize', '/oauth/authorize', form],
    ['POST /login', '/login', form],
    [
      'POST /oauth/applications (JSON)',
      '/oauth/applications',
      { ...ADMIN, 'content-type': 'application/json', accept: 'application/json' },
    ],
  ])('%s with a 1 MB body: 413, fast', async (_label, path, headers) => {
    const response = await rawRequest(port, request('POST', path, headers, megabyte), megabyte);
    expect(response.status).toBe(413);
    expect(response.ms).toBeLessThan(FAST_MS);
  });

  it('POST /oauth/token with 10,000 parameters: 413, fast', async () => {
    const response = await rawRequest(port, request('POST', '/oauth/token', form, tenThousandParameters), tenThousandParameters);
    expect(response.status).toBe(413);
    expect(response.ms).toBeLessThan(FAST_MS);
  });

  it('a 1 MB body announced but never sent (a slow client) does not get a 500', async () => {
    const response = await rawRequest(port, request('POST', '/oauth/token', { ...form, 'content-length': String(1 << 20) }));
    expect(response.status).toBe(413);
  });

  it.each([
    ['a 64 KB header', { 'x-padding': 'a'.repeat(64 * 1024) }],
    ['a 64 KB Authorization header', { authorization: `Basic ${'QUFB'.repeat(16 * 1024)}` }],
    ['a 64 KB cookie', { cookie: `oauth_session=${'a'.repeat(64 * 1024)}` }],
  ])('%s: 431, fast', async (_label, headers) => {
    const response = await rawRequest(
      port,
      request('POST', '/oauth/token', { ...form, ...headers }, 'grant_type=client_credentials'),
      'grant_type=client_credentials',
    );
    expect(response.status).toBe(431);
    expect(response.ms).toBeLessThan(FAST_MS);
    // The service's error shape, not Fastify's {"error","message","statusCode"}; then the connection ends.
    expect(response.text).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    expect(response.text).toMatch(/\r\nconnection: close\r\n/i);
    // The security headers of every other answer (the fuzz found them missing here).
    for (const header of ['x-frame-options: DENY', 'x-content-type-options: nosniff', 'referrer-policy: no-referrer'])
      expect(response.text.toLowerCase()).toContain(`\r\n${header.toLowerCase()}\r\n`);
    expect(response.text.slice(response.text.indexOf('\r\n\r\n') + 4)).toBe(
      '{"error":"invalid_request","error_description":"The request header fields are too large."}',
    );
  });

  it('a HEAD request with a 64 KB header: 431 without content, which a client reads as the answer (RFC 9110 9.3.2)', async () => {
    // The fuzz's client failed here ("Data after Connection: close"): the body had been sent to a HEAD request.
    const response = await fetch(`http://127.0.0.1:${port}/oauth/introspect`, {
      method: 'HEAD',
      headers: { 'x-padding': 'a'.repeat(64 * 1024) },
    });
    expect(response.status).toBe(431);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(await response.text()).toBe('');
  });

  it('bytes that are not HTTP: 400 invalid_request in the same shape', async () => {
    const response = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text.slice(response.text.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'invalid_request',
      error_description: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
    });
  });

  it('GET /oauth/authorize with 10,000 query parameters (an 80 KB URL): 4xx, fast', async () => {
    const response = await rawRequest(port, request('GET', `/oauth/authorize?${tenThousandParameters}`, {}));
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.ms).toBeLessThan(FAST_MS);
  });

  it('GET /oauth/authorize with 1,500 query parameters inside the header limit: answered, never a 500', async () => {
    const query = Array.from({ length: 1_500 }, (_, i) => `p${i}=${i}`).join('&');
    const response = await rawRequest(port, request('GET', `/oauth/authorize?client_id=x&${query}`, {}));
    expect(response.status).toBeGreaterThanOrEqual(300);
    expect(response.status).toBeLessThan(500);
  });

  it('the service still answers afterwards', async () => {
    expect((await rawRequest(port, request('GET', '/readyz', {}))).status).toBe(200);
  });
});
