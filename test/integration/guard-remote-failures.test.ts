import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteIntrospector, GuardMisconfiguredError, serviceGuard } from '@oauth-service/guard';
import { bearer } from './guard-helpers.js';

// The introspection endpoint misbehaving, played by small real HTTP servers: whatever goes wrong, a protected
// route never lets the request through. An outage is 503 temporarily_unavailable; the server refusing the API's own
// request is 500 server_error (the API is misconfigured; the real service refusing a wrong secret, and the operator's
// log line, are in guard-own-credentials.test.ts).
type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function introspectionServer(handler: Handler): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => handler(request, body, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/introspect`, requests: () => requests };
}

const json = (status: number, value: unknown) => (_request: IncomingMessage, _body: string, response: ServerResponse) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

async function protectedApi(introspectionUrl: string, timeoutMs = 2000) {
  const api = Fastify();
  // A logger of its own, so that the refusals below do not print to the test output through console.error.
  const logger = { error: () => undefined };
  await api.register(serviceGuard, { mode: 'remote', introspectionUrl, clientId: 'api', clientSecret: 'secret', timeoutMs, logger });
  api.get('/any', { preHandler: api.serviceAuthorize() }, async () => ({ ok: true }));
  return api;
}

describe('guard (remote mode): when introspection fails', () => {
  it.each([
    ['answers 500', json(500, { error: 'server_error' })],
    ['answers 429 (a lockout or a request budget: back off)', json(429, { error: 'temporarily_unavailable' })],
    ['answers 400 without an OAuth error (a proxy, not the service)', json(400, { message: 'bad request' })],
    ['answers 404', json(404, { error: 'not_found' })],
    ['answers 200 with something that is not an introspection response', json(200, { ok: true })],
    ['answers 200 with HTML', (_q: IncomingMessage, _b: string, response: ServerResponse) => response.writeHead(200).end('<html>')],
    [
      'redirects',
      (_q: IncomingMessage, _b: string, response: ServerResponse) => response.writeHead(302, { location: 'http://example.com/' }).end(),
    ],
  ])('answers 503 when the server %s', async (_name, handler) => {
    const { url } = await introspectionServer(handler);
    const api = await protectedApi(url);
    const response = await api.inject({ method: 'GET', url: '/any', headers: bearer('some-token') });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toBe('temporarily_unavailable');
    expect(response.headers['cache-control']).toBe('no-store');
    await api.close();
  });

  it('answers 503 when the server does not answer within timeoutMs', async () => {
    const { url } = await introspectionServer(() => undefined);
    const api = await protectedApi(url, 100);
    const started = Date.now();
    const response = await api.inject({ method: 'GET', url: '/any', headers: bearer('some-token') });
    expect(response.statusCode).toBe(503);
    expect(Date.now() - started).toBeLessThan(1800);
    await api.close();
  });

  it('answers 503 when nothing listens at the introspection URL', async () => {
    const { url } = await introspectionServer(json(200, { active: false }));
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    const api = await protectedApi(url);
    expect((await api.inject({ method: 'GET', url: '/any', headers: bearer('some-token') })).statusCode).toBe(503);
    await api.close();
  });

  it('gives the operator the reason in the error message, not the client', async () => {
    const { url } = await introspectionServer(json(401, { error: 'invalid_client', error_description: 'secret stuff' }));
    const introspect = createRemoteIntrospector({ introspectionUrl: url, clientId: 'api', clientSecret: 'wrong' });
    const error = await introspect('some-token').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GuardMisconfiguredError);
    expect(error).toMatchObject({ message: `${url} answered 401 (invalid_client)`, url, status: 401, serviceError: 'invalid_client' });
  });

  it('does not cache a failure: the next request is asked again and succeeds once the server recovers', async () => {
    let healthy = false;
    const { url, requests } = await introspectionServer((request, body, response) =>
      healthy
        ? json(200, { active: true, token_type: 'Bearer', scope: 'read' })(request, body, response)
        : json(503, {})(request, body, response),
    );
    const api = await protectedApi(url);
    expect((await api.inject({ method: 'GET', url: '/any', headers: bearer('some-token') })).statusCode).toBe(503);
    healthy = true;
    expect((await api.inject({ method: 'GET', url: '/any', headers: bearer('some-token') })).statusCode).toBe(200);
    expect(requests()).toBe(2);
    await api.close();
  });
});

describe("guard (remote mode): when the server refuses the API's own request", () => {
  it.each([
    ['401 invalid_client (a wrong clientId or clientSecret)', json(401, { error: 'invalid_client' })],
    ['401 without a body', (_q: IncomingMessage, _b: string, response: ServerResponse) => response.writeHead(401).end()],
    ['403 (the client may not introspect)', json(403, { error: 'access_denied' })],
    ['400 unauthorized_client', json(400, { error: 'unauthorized_client' })],
    ['400 invalid_request (the request is wrong)', json(400, { error: 'invalid_request' })],
  ])('answers 500 server_error "the API is misconfigured", without a challenge, when it answers %s', async (_name, handler) => {
    const { url } = await introspectionServer(handler);
    const api = await protectedApi(url);
    const response = await api.inject({ method: 'GET', url: '/any', headers: bearer('some-token') });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: 'server_error', error_description: 'the API is misconfigured' });
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
    await api.close();
  });
});

describe('guard (remote mode): the introspection request', () => {
  it('is a form POST with HTTP Basic credentials form-urlencoded first (RFC 6749 appendix B, RFC 7662 section 2.1)', async () => {
    const seen: Array<{ method?: string; type?: string; authorization?: string; body: string }> = [];
    const { url } = await introspectionServer((request, body, response) => {
      seen.push({ method: request.method, type: request.headers['content-type'], authorization: request.headers.authorization, body });
      json(200, { active: false })(request, body, response);
    });
    const introspect = createRemoteIntrospector({ introspectionUrl: url, clientId: 'my api', clientSecret: 's3cr:t' });
    expect(await introspect('tok.en')).toBeNull();
    expect(seen).toEqual([
      {
        method: 'POST',
        type: 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('my+api:s3cr%3At').toString('base64')}`,
        body: 'token=tok.en&token_type_hint=access_token',
      },
    ]);
  });

  it('is shared by concurrent requests presenting the same token', async () => {
    const { url, requests } = await introspectionServer((request, body, response) => {
      setTimeout(() => json(200, { active: true, token_type: 'Bearer', scope: 'read' })(request, body, response), 50);
    });
    const api = await protectedApi(url);
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => api.inject({ method: 'GET', url: '/any', headers: bearer('shared') })),
    );
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(requests()).toBe(1);
    await api.close();
  });
});
