import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postLogoutToken } from '../../src/oauth/openid/backchannel-logout/logout-token-post.js';

// OpenID Connect Back-Channel Logout 1.0 sections 2.5 and 2.8, as the delivery posts a logout token: to a relying party's
// own HTTP server on loopback, answering as a broken or hostile one might. A redirect is not followed, a silent server
// is given up at the deadline, and an answer's body is not read beyond a few bytes: none of them holds the delivery.

const TOKEN = 'header.payload.signature';

interface Received {
  path: string;
  contentType: string | undefined;
  body: string;
}

describe('posting a logout token to a relying party', () => {
  let server: Server;
  let origin: string;
  const received: Received[] = [];
  // Answers by path; a request to a path not listed here is a test failure (it shows in `received`).
  const answers: Record<string, (response: ServerResponse) => void> = {
    '/ok': (response) => response.writeHead(200).end(),
    '/no-content': (response) => response.writeHead(204).end(),
    '/busy': (response) => response.writeHead(429, { 'retry-after': '5' }).end(),
    '/gone': (response) => response.writeHead(404).end(),
    '/redirect': (response) => response.writeHead(302, { location: `${origin}/elsewhere` }).end(),
    '/silent': () => undefined,
    // 20 kB of body and then nothing, never the end of it.
    '/endless': (response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('x'.repeat(20_000));
    },
  };

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ path: request.url ?? '', contentType: request.headers['content-type'], body });
        answers[request.url ?? '']?.(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (path: string, timeoutMs = 5000) => postLogoutToken(`${origin}${path}`, TOKEN, { allowPrivateAddresses: true, timeoutMs });

  it('posts logout_token as a form; 200 and 204 are delivered', async () => {
    expect(await post('/ok')).toEqual({ kind: 'delivered', status: 200 });
    expect(await post('/no-content')).toEqual({ kind: 'delivered', status: 204 });
    expect(received.find((request) => request.path === '/ok')).toEqual({
      path: '/ok',
      contentType: 'application/x-www-form-urlencoded',
      body: `logout_token=${TOKEN}`,
    });
  });

  it('429 is worth another attempt; 404 is not', async () => {
    expect(await post('/busy')).toEqual({ kind: 'retry', reason: 'the client answered status 429' });
    expect(await post('/gone')).toEqual({ kind: 'refused', reason: 'the client answered status 404' });
  });

  it('a redirect is not followed: the token goes to the registered URI only', async () => {
    expect(await post('/redirect')).toEqual({ kind: 'refused', reason: 'the client answered a redirect (302), which is not followed' });
    expect(received.map((request) => request.path)).not.toContain('/elsewhere');
  });

  it('a relying party that never answers is given up at the deadline, to be tried again later', async () => {
    expect(await post('/silent', 300)).toEqual({ kind: 'retry', reason: 'no answer within 300 ms' });
  });

  it('an answer whose body never ends is taken by its status once 16 kB have come, not waited for', async () => {
    // Within the five seconds' deadline: read to its end, the answer would be a retry at the deadline instead.
    expect(await post('/endless')).toEqual({ kind: 'delivered', status: 200 });
  });
});
