import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { authorizeUrl, countRows, createClient, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';
import { CALLBACK, LOOPBACK, locationIsRegistered, REGISTERED, securityServer, WITH_QUERY } from './support.js';

// RFC 9700 section 4.1 (insufficient redirect URI validation) and section 4.1.3 (exact string matching), RFC 6749
// section 3.1.2.3 and 4.1.2.1: a manipulated redirect_uri never receives a redirect, on any action of
// /oauth/authorize. The basic cases (wrong path, case, trailing slash, extra query, userinfo, fragment, localhost)
// are in test/integration/authorize-redirect-uri.test.ts; these are the attacker's refinements.

const manipulations: Array<[string, string]> = [
  ['extra path segment', `${CALLBACK}/extra`],
  ['dot segments', 'https://app.example.com/x/../callback'],
  ['"..;/" path parameter trick', `${CALLBACK}/..;/evil`],
  ['"..;/" before the path', 'https://app.example.com/..;/callback'],
  ['upper-case path', 'https://app.example.com/CALLBACK'],
  ['upper-case scheme', 'HTTPS://app.example.com/callback'],
  ['mixed-case host', 'https://App.Example.com/callback'],
  ['trailing slash', `${CALLBACK}/`],
  ['double slash', 'https://app.example.com//callback'],
  ['empty query', `${CALLBACK}?`],
  ['extra query pointing elsewhere', `${CALLBACK}?next=https://evil.com/`],
  ['registered query repeated', `${WITH_QUERY}&tenant=2`],
  ['userinfo naming the host', 'https://app.example.com@evil.com/callback'],
  ['userinfo with port', 'https://app.example.com:443@evil.com/callback'],
  ['attacker userinfo before the host', 'https://evil.com@app.example.com/callback'],
  ['encoded "@"', 'https://app.example.com%40evil.com/callback'],
  ['encoded slash traversal', 'https://app.example.com/callback%2F..%2F..%2Fevil'],
  ['double-encoded slash', 'https://app.example.com/callback%252F..'],
  ['encoded letter', 'https://app.example.com/c%61llback'],
  ['encoded NUL', 'https://app.example.com/callback%00'],
  ['encoded CR LF', 'https://app.example.com/callback%0d%0aLocation:%20https://evil.com'],
  ['fully encoded URI', encodeURIComponent(CALLBACK)],
  ['backslash host trick', 'https://app.example.com\\@evil.com/callback'],
  ['leading space', ` ${CALLBACK}`],
  ['trailing tab', `${CALLBACK}\t`],
  ['Cyrillic homoglyph host', 'https://\u0430pp.example.com/callback'],
  ['fullwidth solidus', 'https://app.example.com\uff0fcallback'],
  ['explicit port', 'https://app.example.com:8443/callback'],
  ['empty port', 'https://app.example.com:/callback'],
  ['scheme-relative', '//app.example.com/callback'],
  ['plain http', 'http://app.example.com/callback'],
  ['empty fragment', `${CALLBACK}#`],
  ['fragment with a host', `${CALLBACK}#@evil.com`],
  ['other loopback IPv4', 'http://127.0.0.2:8080/cb'],
  ['short-form loopback', 'http://127.1:8080/cb'],
  ['decimal loopback', 'http://2130706433:8080/cb'],
  ['hex loopback', 'http://0x7f.0.0.1:8080/cb'],
  ['IPv6 loopback for an IPv4 registration', 'http://[::1]:8080/cb'],
  ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:8080/cb'],
  ['"localhost" for the loopback IP', 'http://localhost:8080/cb'],
  ['loopback as a subdomain', 'http://127.0.0.1.evil.com:8080/cb'],
  ['loopback as userinfo', 'http://127.0.0.1:8080@evil.com/cb'],
];

describe(`RFC 9700 section 4.1: redirect URI manipulation at /oauth/authorize (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let trusted: ApplicationRecord;
  let native: ApplicationRecord;
  let agent: UserAgent;
  let csrf: string;

  beforeAll(async () => {
    // A client in skipAuthorization.clients gets a code on GET without a consent screen: the riskiest path.
    server = await securityServer({ skipAuthorization: { clients: ['trusted-client', 'native-client'] } });
    await createUser(server.deps, 'alice');
    client = (await createClient(server.deps, { redirectUri: REGISTERED.join('\n') })).application;
    trusted = (await createClient(server.deps, { name: 'Trusted', redirectUri: REGISTERED.join('\n') }, { uid: 'trusted-client' }))
      .application;
    native = (
      await createClient(server.deps, { name: 'Native', redirectUri: REGISTERED.join('\n'), confidential: false }, { uid: 'native-client' })
    ).application;
    agent = await signedIn(server.app, 'alice');
    csrf = await agent.csrfFrom(authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code' }));
  });
  afterAll(() => server.close());

  /** Every action of the endpoint with this redirect_uri: new (GET, with and without a later error), create, deny. */
  async function everyAction(application: ApplicationRecord, redirectUri: string): Promise<Array<[string, LightMyRequestResponse]>> {
    const parameters = { client_id: application.uid, redirect_uri: redirectUri, response_type: 'code', state: 's' };
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}, method: 'POST' | 'DELETE' = 'POST') =>
      agent.request({ method, url: '/oauth/authorize', headers: { ...FORM, ...headers }, payload: form(fields) });
    return [
      ['GET', await agent.request({ method: 'GET', url: authorizeUrl(parameters) })],
      ['GET with a bad scope', await agent.request({ method: 'GET', url: authorizeUrl({ ...parameters, scope: 'unknown' }) })],
      ['GET form_post', await agent.request({ method: 'GET', url: authorizeUrl({ ...parameters, response_mode: 'form_post' }) })],
      ['POST (approve)', await post({ ...parameters, _csrf: csrf })],
      ['POST _method=delete (deny)', await post({ ...parameters, _method: 'delete', _csrf: csrf })],
      ['DELETE (deny)', await post(parameters, { 'x-csrf-token': csrf }, 'DELETE')],
    ];
  }

  it('the harness sees redirects: a registered URI is redirected to on every action (sanity check)', async () => {
    for (const [action, answer] of await everyAction(trusted, CALLBACK)) {
      if (action === 'GET form_post') continue;
      // An approval no consent page was shown for is sent to the request's GET (consent-ticket.ts), which approves.
      const response = action === 'POST (approve)' ? await followLocalRedirect(answer) : answer;
      expect([302, 303], action).toContain(response.statusCode);
      expect(locationIsRegistered(String(response.headers.location), [CALLBACK]), action).toBe(true);
    }
  });

  async function followLocalRedirect(response: LightMyRequestResponse): Promise<LightMyRequestResponse> {
    expect(response.statusCode).toBe(303);
    expect(String(response.headers.location)).toMatch(/^\/oauth\/authorize\?/);
    return agent.request({ method: 'GET', url: String(response.headers.location) });
  }

  it.each(manipulations)('%s: shown as an error page on every action, never redirected, nothing issued', async (_label, uri) => {
    const grants = await countRows(server, 'oauth_access_grants');
    for (const application of [client, trusted]) {
      for (const [action, response] of await everyAction(application, uri)) {
        expect(response.statusCode, action).toBe(400);
        expect(response.headers.location, action).toBeUndefined();
        expect(response.body, action).not.toContain('redirect_form');
      }
    }
    expect(await countRows(server, 'oauth_access_grants')).toBe(grants);
  });

  it('the loopback exception is only the port (RFC 8252 section 7.3), for native apps: another port redirects there, with nothing else changed', async () => {
    const actions = await everyAction(native, 'http://127.0.0.1:5555/cb');
    const redirected = actions.filter(([, response]) => response.headers.location !== undefined);
    expect(redirected.length).toBeGreaterThan(0);
    for (const [, response] of redirected) {
      const location = String(response.headers.location);
      expect(location).toMatch(/^http:\/\/127\.0\.0\.1:5555\/cb\?/);
      expect(locationIsRegistered(location, [LOOPBACK])).toBe(true);
    }
  });

  it('a confidential client gets no loopback port exception: another port is an error page on every action', async () => {
    for (const [action, response] of await everyAction(trusted, 'http://127.0.0.1:5555/cb')) {
      expect([action, response.statusCode, response.headers.location]).toEqual([action, 400, undefined]);
    }
  });
});
