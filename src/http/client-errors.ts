import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { GENERIC_INVALID_REQUEST } from '../oauth/errors.js';

// What Node's HTTP parser refuses before Fastify sees a request (header fields too large, a request not received in
// time, bytes that are not HTTP) is answered in the service's own error shape, as every other refusal is, instead of
// Fastify's {"error","message","statusCode"}; then the connection is closed, as Node and Fastify close it.

const REFUSALS: Partial<Record<string, { status: number; description: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, description: 'The request header fields are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, description: 'The request was not received in full in time.' },
};

// The headers every other answer has (plugins/security-headers.ts), this one having no page or request of its own.
const SECURITY_HEADERS =
  "X-Frame-Options: DENY\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nContent-Security-Policy: frame-ancestors 'none'\r\n";

/** Fastify's clientErrorHandler. */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, description } = REFUSALS[error.code ?? ''] ?? { status: 400, description: GENERIC_INVALID_REQUEST };
  const body = JSON.stringify({ error: 'invalid_request', error_description: description });
  // RFC 9110 section 9.3.2: the answer to a HEAD request has no content (a client reads the bytes after the header
  // as the next answer on a closed connection, and fails).
  const content = isHead(error) ? '' : body;
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${SECURITY_HEADERS}Connection: close\r\n\r\n${content}`,
    );
  socket.destroy(error);
}

// What the parser had read of the request (a Buffer, which Fastify's type calls JSON): its method, once the request
// line came whole.
function isHead(error: ConnectionError): boolean {
  const packet: unknown = error.rawPacket;
  return Buffer.isBuffer(packet) && packet.subarray(0, 5).toString('latin1') === 'HEAD ';
}
