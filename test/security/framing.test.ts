import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, hiddenFields, userAgent, type UserAgent } from '../helpers/end-user.js';
import { type TestClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';
import { ADMIN } from '../integration/applications-support.js';
import { CALLBACK, signedInFixture } from './support.js';

// RFC 6749 section 10.13 and RFC 9700 section 4.16 (clickjacking): no response of the service may be framed,
// so every page, error and API answer carries X-Frame-Options: DENY and CSP frame-ancestors 'none'.

function expectNotFramable(label: string, response: LightMyRequestResponse) {
  expect(response.statusCode, label).toBeLessThan(500);
  expect(response.headers['x-frame-options'], label).toBe('DENY');
  expect(String(response.headers['content-security-policy']), label).toContain("frame-ancestors 'none'");
}

describe(`RFC 9700 section 4.16: framing (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let agent: UserAgent;

  beforeAll(async () => {
    ({ server, client, agent } = await signedInFixture());
  });
  afterAll(() => server.close());

  it('every end-user page, error page and redirect: login, logout, consent, errors, form_post, native code, authorized applications', async () => {
    const request = { client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code' };
    const consent = await agent.request({ method: 'GET', url: authorizeUrl(request) });
    const formPostPage = await agent.request({ method: 'GET', url: authorizeUrl({ ...request, response_mode: 'form_post' }) });
    const pages: Array<[string, LightMyRequestResponse]> = [
      ['login', await userAgent(server.app).request({ method: 'GET', url: '/login' })],
      ['failed login', await userAgent(server.app).post('/login', { username: 'alice', password: 'wrong' })],
      ['login without CSRF', await server.app.inject({ method: 'POST', url: '/login', headers: FORM, payload: 'username=a&password=b' })],
      ['logout', await agent.request({ method: 'GET', url: '/logout' })],
      ['consent', consent],
      ['authorize error page', await agent.request({ method: 'GET', url: authorizeUrl({ client_id: 'unknown' }) })],
      ['authorize error redirect', await agent.request({ method: 'GET', url: authorizeUrl({ ...request, scope: 'unknown' }) })],
      [
        'code redirect',
        await agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form(hiddenFields(consent.body, 0)) }),
      ],
      [
        'form_post',
        await agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form(hiddenFields(formPostPage.body, 0)) }),
      ],
      ['native code page', await agent.request({ method: 'GET', url: '/oauth/authorize/native?code=abc' })],
      ['anonymous authorize', await server.app.inject({ method: 'GET', url: authorizeUrl(request) })],
      ['authorized applications', await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })],
      [
        'authorized applications JSON',
        await agent.request({ method: 'GET', url: '/oauth/authorized_applications', headers: { accept: 'application/json' } }),
      ],
    ];
    for (const [label, response] of pages) expectNotFramable(label, response);
  });

  it('every admin page, for the admin, a stranger and an unknown id', async () => {
    const id = client.application.id;
    const admin = (url: string, headers: Record<string, string> = ADMIN) => server.app.inject({ method: 'GET', url, headers });
    const pages: Array<[string, LightMyRequestResponse]> = [];
    for (const path of ['', '/new', `/${id}`, `/${id}/edit`, `/${id}/delete`, '/999999', '/abc'])
      pages.push([path, await admin(`/oauth/applications${path}`)]);
    pages.push(['JSON index', await admin('/oauth/applications', { ...ADMIN, accept: 'application/json' })]);
    pages.push(['no credentials', await admin('/oauth/applications', {})]);
    pages.push([
      'wrong password',
      await admin('/oauth/applications', { authorization: `Basic ${Buffer.from('admin:wrong').toString('base64')}` }),
    ]);
    for (const [label, response] of pages) expectNotFramable(label, response);
  });

  it('every API and operations answer: token, revoke, introspect, token info, metadata, health, metrics, 404, 415, 413', async () => {
    const inject = (method: 'GET' | 'POST', url: string, payload?: string, type = 'application/x-www-form-urlencoded') =>
      server.app.inject({ method, url, headers: { 'content-type': type }, payload });
    const answers: Array<[string, LightMyRequestResponse]> = [
      ['token', await inject('POST', '/oauth/token', 'grant_type=client_credentials')],
      ['revoke', await inject('POST', '/oauth/revoke', 'token=x')],
      ['introspect', await inject('POST', '/oauth/introspect', 'token=x')],
      ['token info', await inject('GET', '/oauth/token/info')],
      ['metadata', await inject('GET', '/.well-known/oauth-authorization-server')],
      ['healthz', await inject('GET', '/healthz')],
      ['readyz', await inject('GET', '/readyz')],
      ['metrics (public port: not served)', await inject('GET', '/metrics')],
      ['metrics listener', await server.app.metricsListener!.inject({ method: 'GET', url: '/metrics' })],
      ['stylesheet', await inject('GET', '/assets/style.css')],
      ['404', await inject('GET', '/nothing-here')],
      ['415', await inject('POST', '/oauth/token', '{}', 'application/json')],
      ['413', await inject('POST', '/oauth/token', `token=${'a'.repeat(20_000)}`)],
    ];
    for (const [label, response] of answers) expectNotFramable(label, response);
  });

  it.each([
    ['a malformed percent-encoding in the path', '/oauth/%ZZ'],
    ['an over-long path parameter', `/oauth/applications/${'1'.repeat(300)}`],
  ])('%s is answered like any error: not framable, OAuth error body, no Fastify internals', async (_label, url) => {
    const response = await server.app.inject({ method: 'GET', url, headers: ADMIN });
    expectNotFramable(url, response);
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.body).not.toContain('FST_ERR');
    expect(Object.keys(response.json() as object).sort()).toEqual(['error', 'error_description']);
  });
});
