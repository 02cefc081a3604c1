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

/** Fastify's clientErrorHandler. */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, description } = REFUSALS[error.code ?? ''] ?? { status: 400, description: GENERIC_INVALID_REQUEST };
  const body = JSON.stringify({ error: 'invalid_request', error_description: description });
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  socket.destroy(error);
}
