import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { authorizeUrl, createClient, createUser, hiddenFields, locationParameters, signedIn, type UserAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';
import { CALLBACK, securityServer } from './support.js';

// RFC 9700 section 4.11 (open redirection) and RFC 6749 section 4.1.2.1: errors and denials go to the client only
// once client and redirect URI are verified. Deny with a registered client and an unregistered URI is in
// test/integration/authorize-consent.test.ts and authorize-redirect-uri.test.ts; these are the unverified clients.
// Then `state` (RFC 6749 section 4.1.2): echoed to the client, so it must never split or inject a header.

const EVIL = 'https://evil.example/steal';

describe(`RFC 9700 section 4.11, RFC 6749 section 4.1.2: open redirects and state injection at /oauth/authorize (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let other: ApplicationRecord;
  let agent: UserAgent;
  let csrf: string;

  beforeAll(async () => {
    server = await securityServer();
    await createUser(server.deps, 'alice');
    client = (await createClient(server.deps, { redirectUri: CALLBACK })).application;
    other = (await createClient(server.deps, { name: 'Evil', redirectUri: EVIL })).application;
    agent = await signedIn(server.app, 'alice');
    csrf = await agent.csrfFrom(authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code' }));
  });
  afterAll(() => server.close());

  const deny = (body: string) =>
    agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: `${body}&_method=delete&_csrf=${csrf}` });
  const evil = encodeURIComponent(EVIL);

  it.each([
    ['an unknown client_id', `client_id=unknown&redirect_uri=${evil}&response_type=code`],
    ['no client_id', `redirect_uri=${evil}&response_type=code`],
    ['a blank client_id', `client_id=%20&redirect_uri=${evil}&response_type=code`],
    ['client_id sent twice', () => `client_id=${client.uid}&client_id=${other.uid}&redirect_uri=${evil}&response_type=code`],
    ['a nested client_id', () => `client_id[x]=${client.uid}&redirect_uri=${evil}&response_type=code`],
    [
      'redirect_uri sent twice, registered first',
      () => `client_id=${client.uid}&redirect_uri=${encodeURIComponent(CALLBACK)}&redirect_uri=${evil}&response_type=code`,
    ],
    ["another client's registered URI", () => `client_id=${client.uid}&redirect_uri=${evil}&response_type=code`],
    ['no response_type and an unregistered URI', () => `client_id=${client.uid}&redirect_uri=${evil}`],
  ])('RFC 9700 section 4.11: deny (_method=delete) with %s is an error page, never a redirect', async (_label, body) => {
    const payload = typeof body === 'function' ? body() : body;
    const response = await deny(payload);
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(response.headers.location).toBeUndefined();
    const get = await agent.request({ method: 'GET', url: `/oauth/authorize?${payload}&scope=unknown&state=s` });
    expect(get.statusCode).toBeGreaterThanOrEqual(400);
    expect(get.headers.location).toBeUndefined();
  });

  const hostileStates = [
    'x\r\nSet-Cookie: evil=1',
    'x\nX-Injected: 1',
    'x\rX-Injected: 1',
    '%0d%0aX-Injected:%201',
    'x\u2028X-Injected: 1\u2029',
    'x\u0085X-Injected: 1',
    '"><script>alert(1)</script>',
    'é\u{1F600}\ufeff',
    'a'.repeat(4000),
  ];

  function expectStateCarried(response: LightMyRequestResponse, state: string, part: 'search' | 'hash') {
    expect([302, 303]).toContain(response.statusCode);
    const location = String(response.headers.location);
    expect(location.startsWith(CALLBACK)).toBe(true);
    // RFC 3986: only URI characters in the header; anything else percent-encoded.
    expect(location).toMatch(/^[\x21-\x7e]+$/);
    expect(locationParameters(response, part).get('state')).toBe(state);
    expect(response.headers['x-injected']).toBeUndefined();
    expect(String(response.headers['set-cookie'] ?? '')).not.toContain('evil');
  }

  it.each(hostileStates.map((state) => [JSON.stringify(state).slice(0, 40), state]))(
    'RFC 6749 section 4.1.2: state %s is percent-encoded in the Location of an error, a denial and a code',
    async (_label, state) => {
      const request = { client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code', state };
      const error = await agent.request({ method: 'GET', url: authorizeUrl({ ...request, scope: 'unknown' }) });
      expectStateCarried(error, state, 'search');
      const fragment = await agent.request({
        method: 'GET',
        url: authorizeUrl({ ...request, scope: 'unknown', response_mode: 'fragment' }),
      });
      expectStateCarried(fragment, state, 'hash');
      const page = await agent.request({ method: 'GET', url: authorizeUrl(request) });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('<script>alert(1)</script>');
      const post = (fields: Record<string, string>) =>
        agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form(fields) });
      expectStateCarried(await post(hiddenFields(page.body, 1)), state, 'search');
      // The denial answered that page (consent-ticket.ts): the approval is another page's.
      const again = await agent.request({ method: 'GET', url: authorizeUrl(request) });
      expectStateCarried(await post(hiddenFields(again.body, 0)), state, 'search');
    },
  );

  it('state in a form_post response is an escaped attribute value, never markup', async () => {
    const state = '"><script>alert(1)</script><input name="code" value="forged';
    const page = await agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code', response_mode: 'form_post', state }),
    });
    const response = await agent.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: FORM,
      payload: form(hiddenFields(page.body, 0)),
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain('<script>alert(1)</script>');
    expect(response.body.match(/name="code"/g)).toHaveLength(1);
    expect(hiddenFields(response.body, 0).state).toBe(state);
  });
});
