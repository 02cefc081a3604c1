import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import {
  authorizeUrl,
  countRows,
  createClient,
  createUser,
  csrfTokenIn,
  locationParameters,
  signedIn,
  type UserAgent,
} from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

// SPEC 3.5 and reference 7.2 with SPEC 8: exact match against one registered URI, except the port of a literal
// loopback IP for native (public) clients (RFC 8252 section 7.3). RFC 6749 section 4.1.2.1: a mismatch is
// shown, never redirected.

const CALLBACK = 'https://client.example.com/callback';
const WITH_QUERY = 'https://client.example.com/q?tenant=1&region=eu';
const LOOPBACK_V4 = 'http://127.0.0.1:8080/cb';
const LOOPBACK_V6 = 'http://[::1]:9000/cb';
const REGISTERED = [CALLBACK, WITH_QUERY, LOOPBACK_V4, LOOPBACK_V6];
const MISMATCH = "The requested redirect URI is malformed or doesn't match the client redirect URI.";

const accepted: Array<[string, string]> = [
  ['exact match', CALLBACK],
  ['exact match with its registered query', WITH_QUERY],
  ['loopback IPv4, same port', LOOPBACK_V4],
];

// RFC 8252 section 7.3: a native app (a public client) may listen on any loopback port.
const acceptedForNativeApps: Array<[string, string]> = [
  ['loopback IPv4, another port', 'http://127.0.0.1:51234/cb'],
  ['loopback IPv4, no port', 'http://127.0.0.1/cb'],
  ['loopback IPv6, another port', 'http://[::1]:1234/cb'],
];
// RFC 7636 appendix B's challenge: public clients must use PKCE here.
const PKCE = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };

const refused: Array<[string, string]> = [
  ['a fragment', `${CALLBACK}#fragment`],
  ['a wrong path', 'https://client.example.com/other'],
  ['a path with different case', 'https://client.example.com/Callback'],
  ['a trailing slash', `${CALLBACK}/`],
  ['an extra query', `${CALLBACK}?foo=bar`],
  ['the registered query reordered', 'https://client.example.com/q?region=eu&tenant=1'],
  ['the registered query missing', 'https://client.example.com/q'],
  ['another scheme', 'http://client.example.com/callback'],
  ['another host', 'https://evil.example/callback'],
  ['a suffix on the host', 'https://client.example.com.evil.example/callback'],
  ['userinfo', 'https://client.example.com@evil.example/callback'],
  ['an explicit default port', 'https://client.example.com:443/callback'],
  ['host case changed', 'https://CLIENT.example.com/callback'],
  ['loopback with another path', 'http://127.0.0.1:51234/other'],
  ['"localhost" instead of the loopback IP', 'http://localhost:8080/cb'],
  ['https on the loopback IP', 'https://127.0.0.1:8080/cb'],
  ['a javascript: URI', 'javascript:alert(1)//client.example.com/callback'],
  ['a relative URI', '/callback'],
  ['percent-encoding changed', 'https://client.example.com/%63allback'],
  ['an empty value', ''],
];

describe(`redirect_uri at /oauth/authorize (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let nativeApp: ApplicationRecord;
  let agent: UserAgent;

  beforeAll(async () => {
    server = await buildTestServer();
    await createUser(server.deps, 'alice');
    client = (await createClient(server.deps, { redirectUri: REGISTERED.join('\n') })).application;
    nativeApp = (await createClient(server.deps, { name: 'Native', redirectUri: REGISTERED.join('\n'), confidential: false })).application;
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const authorize = (redirectUri: string, extra: Record<string, string> = {}) =>
    agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: client.uid, redirect_uri: redirectUri, response_type: 'code', ...extra }),
    });

  it.each(accepted)('%s is accepted: consent screen', async (_case, uri) => {
    const response = await authorize(uri);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Authorization required');
  });

  it.each(accepted)('%s: a later error is redirected to exactly the requested URI', async (_case, uri) => {
    const response = await authorize(uri, { scope: 'unknown', state: 's' });
    expect(response.statusCode).toBe(302);
    const location = String(response.headers.location);
    expect(location.startsWith(`${uri}${uri.includes('?') ? '&' : '?'}error=invalid_scope`)).toBe(true);
  });

  const authorizeNative = (redirectUri: string, extra: Record<string, string> = {}) =>
    agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: nativeApp.uid, redirect_uri: redirectUri, response_type: 'code', ...PKCE, ...extra }),
    });

  it.each(acceptedForNativeApps)('%s is accepted for a native app: consent screen', async (_case, uri) => {
    const response = await authorizeNative(uri);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Authorization required');
  });

  it.each(acceptedForNativeApps)('%s is invalid_redirect_uri for a confidential client (finding 7)', async (_case, uri) => {
    const response = await authorize(uri, { state: 's' });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
  });

  it.each(acceptedForNativeApps)('%s for a native app: a later error is redirected to exactly the requested URI', async (_case, uri) => {
    const response = await authorizeNative(uri, { scope: 'unknown', state: 's' });
    expect(response.statusCode).toBe(302);
    expect(String(response.headers.location).startsWith(`${uri}?error=invalid_scope`)).toBe(true);
  });

  it.each(refused)('%s is invalid_redirect_uri, shown with 400 and never redirected', async (_case, uri) => {
    const response = await authorize(uri, { scope: 'unknown', state: 's' });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain(MISMATCH.replace("'", '&#39;'));
  });

  it('redirect_uri is always required, even with one registered URI (SPEC 3.5)', async () => {
    const single = (await createClient(server.deps, { name: 'Single' })).application;
    const response = await agent.request({ method: 'GET', url: authorizeUrl({ client_id: single.uid, response_type: 'code' }) });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
  });

  it('an unknown client is shown with 401, whatever its redirect_uri', async () => {
    const response = await agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: 'unknown', redirect_uri: 'https://evil.example/', response_type: 'code' }),
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers.location).toBeUndefined();
  });

  it("a URI registered for another client is not this client's", async () => {
    await createClient(server.deps, { name: 'Other', redirectUri: 'https://other.example/cb' });
    const response = await authorize('https://other.example/cb');
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
  });

  it('no request, on any action, makes the service redirect to an unregistered URI', async () => {
    const before = await countRows(server, 'oauth_access_grants');
    const csrf = csrfTokenIn((await authorize(CALLBACK)).body)!;
    const unregistered = refused.map(([, uri]) => uri);
    for (const uri of unregistered) {
      const parameters = { client_id: client.uid, redirect_uri: uri, response_type: 'code', state: 's', scope: 'bad' };
      const responses = [
        await authorize(uri, { response_mode: 'form_post' }),
        await agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form({ ...parameters, _csrf: csrf }) }),
        await agent.request({
          method: 'POST',
          url: '/oauth/authorize',
          headers: FORM,
          payload: form({ ...parameters, _method: 'delete', _csrf: csrf }),
        }),
        await agent.request({
          method: 'DELETE',
          url: '/oauth/authorize',
          headers: { ...FORM, 'x-csrf-token': csrf },
          payload: form(parameters),
        }),
      ];
      for (const response of responses) {
        expect(response.statusCode, uri).toBe(400);
        expect(response.headers.location, uri).toBeUndefined();
        expect(response.body).not.toContain('redirect_form');
      }
    }
    expect(await countRows(server, 'oauth_access_grants')).toBe(before);
  });

  it('an error redirect keeps the registered query and appends error, error_description, state and iss', async () => {
    const response = await authorize(WITH_QUERY, { scope: 'unknown', state: 'xyz' });
    expect(Object.fromEntries(locationParameters(response))).toEqual({
      tenant: '1',
      region: 'eu',
      error: 'invalid_scope',
      error_description: 'The requested scope is invalid, unknown, or malformed.',
      state: 'xyz',
      iss: server.config.baseUrl,
    });
  });
});
