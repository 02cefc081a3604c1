import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { listeningTestServer } from '../helpers/listening-server.js';
import { backend } from '../helpers/test-database.js';

// Graceful shutdown (SIGTERM runs app.close()) lets in-flight requests finish; the keep-alive connections that carried
// them must end with their responses, or close() waits keepAliveTimeout (72 s) for them and the process is SIGKILLed
// by `docker stop` (10 s) first (src/http/plugins/shutdown-connections.ts).
describe(`graceful shutdown and keep-alive connections (${backend})`, () => {
  it('a request in flight when close() starts is answered with Connection: close, and close() ends without waiting for its connection (RFC 9112 section 9.6)', async () => {
    const server = await listeningTestServer();
    const { port } = new URL(server.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    try {
      await once(socket, 'connect');
      let response = '';
      const answered = new Promise<void>((resolve) =>
        socket.setEncoding('utf8').on('data', (chunk: string) => {
          response += chunk;
          if (response.includes('\r\n\r\n')) resolve();
        }),
      );
      const socketEnded = once(socket, 'end').then(() => 'ended');
      const body = 'grant_type=client_credentials';
      // HTTP/1.1 keeps the connection alive by default. The headers now and the body later: the request is in flight,
      // not idle, when close() starts.
      const received = once(server.app.server, 'request');
      socket.write(
        `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      await received;
      const closed = server.app.close().then(() => 'closed');
      socket.write(body);
      await answered;
      expect(response).toMatch(/^HTTP\/1\.1 401 /);
      expect(response.toLowerCase()).toContain('\r\nconnection: close\r\n');
      expect(await Promise.race([closed, sleep(5_000, 'still waiting for the connection')])).toBe('closed');
      expect(await Promise.race([socketEnded, sleep(1_000, 'open')])).toBe('ended');
    } finally {
      socket.destroy();
      await server.close();
    }
  });
});
