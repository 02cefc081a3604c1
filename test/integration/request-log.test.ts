import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogLines } from '../helpers/log-lines.js';
import { createUser, userAgent } from '../helpers/end-user.js';
import { createClient } from '../helpers/factories.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { basicAuth, buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

// docs/operations.md: one JSON line per request, when it completes; `incoming request` only at debug.
describe('request log lines', () => {
  let server: TestServer | null = null;
  afterEach(() => server?.close());

  async function linesAt(level: 'info' | 'debug'): Promise<Record<string, unknown>[]> {
    const { stream: logStream, lines } = capturedLogLines();
    server = await buildTestServer({ config: { log: { level, format: 'json' } }, logStream });
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: form({ grant_type: 'password' }),
    });
    expect(response.statusCode).toBe(400);
    return lines.filter((line) => line.reqId !== undefined);
  }

  it('at info, one line per request once answered: method, URL, address, status and time', async () => {
    const lines = await linesAt('info');
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({
      req: { method: 'POST', url: '/oauth/token', remoteAddress: '127.0.0.1' },
      res: { statusCode: 400 },
    });
    expect(completed[0]!.responseTime).toEqual(expect.any(Number));
    expect(lines.filter((line) => line.msg === 'incoming request')).toHaveLength(0);
  });

  it("X-Request-Id: a plain one sent is the lines' reqId and comes back; otherwise a random one, unique per request", async () => {
    const { stream: logStream, lines } = capturedLogLines();
    server = await buildTestServer({ config: { log: { level: 'info', format: 'json' } }, logStream });
    const ask = (headers: Record<string, string>) => server!.app.inject({ method: 'GET', url: '/healthz', headers });
    const given = await ask({ 'x-request-id': 'lb-7f3a9c:42' });
    expect(given.headers['x-request-id']).toBe('lb-7f3a9c:42');
    expect(lines.find((line) => line.msg === 'request completed')).toMatchObject({ reqId: 'lb-7f3a9c:42' });
    const made = await Promise.all(
      ([{}, { 'x-request-id': 'has spaces and "quotes"' }, { 'x-request-id': 'x'.repeat(129) }] as Record<string, string>[]).map(
        async (headers) => {
          const id = (await ask(headers)).headers['x-request-id'] as string;
          expect(id).toMatch(/^[0-9a-f-]{36}$/);
          return id;
        },
      ),
    );
    expect(new Set(made).size).toBe(3);
  });

  it('at debug, also the line of the request as it arrives', async () => {
    const lines = await linesAt('debug');
    expect(lines.filter((line) => line.msg === 'incoming request')).toMatchObject([{ req: { method: 'POST', url: '/oauth/token' } }]);
    expect(lines.filter((line) => line.msg === 'request completed')).toHaveLength(1);
  });

  // The failure is counted in the domain, which logs it apart from the request's own lines: the request id ties them.
  it("a failed client authentication's line, and its lockout's, name the request's id", async () => {
    const { stream: logStream, lines } = capturedLogLines();
    server = await buildTestServer({ config: { log: { level: 'info', format: 'json' }, rateLimit: { maxFailures: 2 } }, logStream });
    const client = await createClient(server.deps);
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { ...FORM, authorization: basicAuth(client.uid, 'wrong-secret') },
        payload: form({ grant_type: 'client_credentials' }),
      });
      expect(response.statusCode).toBe(401);
    }
    const requestIds = lines.filter((line) => line.msg === 'request completed').map((line) => line.reqId);
    expect(requestIds).toHaveLength(2);
    expect(lines.filter((line) => line.event === 'client.authentication_failed').map((line) => line.reqId)).toEqual(requestIds);
    expect(lines.filter((line) => line.event === 'lockout').map((line) => line.reqId)).toEqual([requestIds[1]]);
  });

  it("a user's lockout line (a wrong password at /login) names the id of the request that locked the pair", async () => {
    const { stream: logStream, lines } = capturedLogLines();
    server = await buildTestServer({ config: { log: { level: 'info', format: 'json' }, rateLimit: { maxFailures: 2 } }, logStream });
    await createUser(server.deps, 'alice');
    const agent = userAgent(server.app);
    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await agent.post('/login', { username: 'alice', password: 'not the password' })).statusCode).toBe(401);
    }
    const logins = lines.filter(
      (line) => line.msg === 'request completed' && (line.req as { method?: string } | undefined)?.method === 'POST',
    );
    expect(logins).toHaveLength(2);
    expect(lines.filter((line) => line.event === 'lockout')).toMatchObject([{ kind: 'user', reqId: logins[1]!.reqId }]);
  });

  // The parser refuses the bytes past Content-Length and destroys the socket while the first request is handled: its
  // address is then undefined, which the failure limits' key once split (an "unexpected error" with a stack, level 50).
  it('a request whose connection the parser dropped is answered without an error line', async () => {
    const { stream: logStream, lines } = capturedLogLines();
    const listening = await listeningTestServer({ log: { level: 'info', format: 'json' } }, { logStream });
    server = listening;
    const client = await createClient(server.deps, { scopes: 'read' });
    const body = 'grant_type=client_credentials';
    const raw =
      `POST /oauth/token HTTP/1.1\r\nHost: x\r\nAuthorization: ${basicAuth(client.uid, client.secret!)}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\n${body}`;
    const port = Number(new URL(listening.baseUrl).port);
    const answer = await new Promise<string>((done) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(raw));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('close', () => done(received));
      socket.on('error', () => done(received));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    // The five bytes read ("grant") hold no grant_type: the request is refused as any other, at info.
    await expect.poll(() => lines.filter((line) => line.reqId !== undefined).length).toBeGreaterThan(0);
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(lines.find((line) => line.reqId !== undefined)).toMatchObject({ level: 30, oauthError: 'invalid_request' });
  });
});
