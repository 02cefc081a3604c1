import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { countRows, createUser, csrfTokenIn, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { createClient, createCode, issueToken, type TestClient } from '../helpers/factories.js';
import { basic, bearer } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { form, FORM, type TestServer } from '../helpers/test-server.js';
import { JSON_API } from '../integration/applications-support.js';
import { CALLBACK, expectNoLeak, securityServer } from './support.js';

// SPEC 9 (injection strings never give a 500 or leak state) and RFC 6749 section 10.14 (code injection): every
// parameter of every endpoint, given SQL metacharacters, is answered exactly as the same parameter given a plain
// wrong value (after the value itself is masked where it is echoed, e.g. state): storage binds every value.
// NUL, which PostgreSQL text cannot hold, is refused earlier on purpose (rfc6749-malformed-requests.test.ts).

const PLAIN = 'plainwrongvalue';
const INJECTIONS = [
  "'",
  "' OR '1'='1",
  "' OR 1=1 --",
  "'; DROP TABLE oauth_access_tokens; --",
  '" OR ""="',
  '1; SELECT pg_sleep(3) --',
  "\\'; --",
  "%' OR '%'='",
  '$1',
  ') OR (1=1',
  "admin'--",
  "1' UNION SELECT token FROM oauth_access_tokens --",
  "';COMMIT;--",
];
const VOLATILE = new Set([
  'access_token',
  'refresh_token',
  'created_at',
  'expires_in',
  'iat',
  'exp',
  'code',
  '_csrf',
  'uid',
  'id',
  'updated_at',
]);

/** What a response says, with the sent value masked and per-request fields (fresh tokens, times) dropped. */
function outcome(response: LightMyRequestResponse, value: string): unknown {
  const mask = (text: string) => text.split(value).join('<value>');
  const location = response.headers.location === undefined ? null : new URL(String(response.headers.location), 'http://local.invalid');
  const type = String(response.headers['content-type'] ?? '');
  let body: unknown = null;
  if (type.includes('json') && response.body !== '') {
    body = JSON.parse(response.body, (key, v: unknown) => (VOLATILE.has(key) ? undefined : typeof v === 'string' ? mask(v) : v));
  } else if (type.includes('html')) {
    body = mask((/<pre>([\s\S]*?)<\/pre>/.exec(response.body) ?? /<h1>([\s\S]*?)<\/h1>/.exec(response.body))?.[1] ?? '');
  }
  const parameters =
    location && Object.fromEntries([...location.searchParams].filter(([name]) => !VOLATILE.has(name)).map(([name, v]) => [name, mask(v)]));
  return { status: response.statusCode, body, location: location && `${location.origin}${location.pathname}`, parameters };
}

describe(`RFC 6749 section 10.14: SQL metacharacters in every parameter of every endpoint (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let agent: UserAgent;
  let userId: number;
  let csrf: string;

  beforeAll(async () => {
    server = await securityServer({ grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', 'password'] });
    client = await createClient(server.deps, { redirectUri: CALLBACK });
    userId = (await createUser(server.deps, 'alice')).id;
    agent = await signedIn(server.app, 'alice');
    csrf = csrfTokenIn((await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).body)!;
  });
  afterAll(() => server.close());

  const asClient = () => basic(client.uid, client.secret!);
  const post = (url: string, params: Record<string, string>, headers: Record<string, string> = asClient()) =>
    server.app.inject({ method: 'POST', url, headers: { ...FORM, ...headers }, payload: form(params) });
  const code = async () => {
    const grant = await createCode(server.deps, {
      application: client.application,
      resourceOwnerId: userId,
      codeChallenge: s256Challenge('v'.repeat(43)),
      codeChallengeMethod: 'S256',
    });
    return { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: 'v'.repeat(43) };
  };
  const refresh = async () => ({
    grant_type: 'refresh_token',
    refresh_token: (await issueToken(server.deps, { application: client.application, resourceOwnerId: userId, withRefreshToken: true }))
      .refreshToken!,
  });
  const access = async () => (await issueToken(server.deps, { application: client.application })).accessToken;
  const replaced = (base: () => Promise<Record<string, string>>, name: string) => async (value: string) => ({
    ...(await base()),
    [name]: value,
  });
  const authorize = { client_id: '', redirect_uri: CALLBACK, response_type: 'code', state: 's' };

  type Probe = (value: string) => Promise<LightMyRequestResponse>;
  const probes: Array<[string, Probe]> = [
    ...['grant_type', 'scope', 'client_id', 'client_secret'].map((name): [string, Probe] => [
      `POST /oauth/token client_credentials ${name}`,
      async (value) =>
        post('/oauth/token', { grant_type: 'client_credentials', client_id: client.uid, client_secret: client.secret!, [name]: value }, {}),
    ]),
    ...['code', 'redirect_uri', 'code_verifier'].map((name): [string, Probe] => [
      `POST /oauth/token authorization_code ${name}`,
      async (v) => post('/oauth/token', await replaced(code, name)(v)),
    ]),
    ...['refresh_token', 'scope'].map((name): [string, Probe] => [
      `POST /oauth/token refresh_token ${name}`,
      async (v) => post('/oauth/token', await replaced(refresh, name)(v)),
    ]),
    ...['username', 'password'].map((name): [string, Probe] => [
      `POST /oauth/token password ${name}`,
      (value) => post('/oauth/token', { grant_type: 'password', username: 'alice', password: 'x', [name]: value }),
    ]),
    ['HTTP Basic client id at /oauth/token', (value) => post('/oauth/token', { grant_type: 'client_credentials' }, basic(value, 'secret'))],
    ...['/oauth/revoke', '/oauth/introspect'].flatMap((url): Array<[string, Probe]> => [
      [`POST ${url} token`, (value) => post(url, { token: value })],
      [`POST ${url} token_type_hint`, async (value) => post(url, { token: await access(), token_type_hint: value })],
    ]),
    ['Bearer credentials at /oauth/introspect', (value) => post('/oauth/introspect', { token: 'x' }, bearer(value))],
    [
      'Bearer token at /oauth/token/info',
      (value) => server.app.inject({ method: 'GET', url: '/oauth/token/info', headers: bearer(value) }),
    ],
    ...Object.keys(authorize)
      .concat('scope', 'response_mode', 'code_challenge', 'code_challenge_method')
      .map((name): [string, Probe] => [
        `GET /oauth/authorize ${name}`,
        (value) =>
          agent.request({ method: 'GET', url: `/oauth/authorize?${form({ ...authorize, client_id: client.uid, [name]: value })}` }),
      ]),
    ...['username', 'password'].map((name): [string, Probe] => [
      `POST /login ${name}`,
      (value) => userAgent(server.app).post('/login', { username: 'alice', password: 'wrong', [name]: value }),
    ]),
    [
      'GET /oauth/applications/:id',
      (value) => server.app.inject({ method: 'GET', url: `/oauth/applications/${encodeURIComponent(value)}`, headers: JSON_API }),
    ],
    [
      'DELETE /oauth/authorized_applications/:id',
      (value) =>
        agent.request({
          method: 'DELETE',
          url: `/oauth/authorized_applications/${encodeURIComponent(value)}`,
          headers: { accept: 'application/json', 'x-csrf-token': csrf },
        }),
    ],
  ];

  it.each(probes)('%s: each injection string is answered like a plain wrong value, never a 500', async (_label, probe) => {
    const expected = outcome(await probe(PLAIN), PLAIN);
    const responses = await Promise.all(INJECTIONS.map(async (value) => [value, await probe(value)] as const));
    for (const [value, response] of responses) {
      expect(response.statusCode, value).toBeLessThan(500);
      expectNoLeak(response, value);
      expect(outcome(response, value), value).toEqual(expected);
    }
  });

  it('an application name made of SQL is stored and shown verbatim, a redirect URI of SQL is a 422, and the tables are all still there', async () => {
    for (const name of INJECTIONS) {
      const refused = await server.app.inject({
        method: 'POST',
        url: '/oauth/applications',
        headers: JSON_API,
        payload: { name, redirect_uri: name },
      });
      expect(refused.statusCode).toBe(422);
      const created = await server.app.inject({
        method: 'POST',
        url: '/oauth/applications',
        headers: JSON_API,
        payload: { name, redirect_uri: CALLBACK },
      });
      expect(created.statusCode).toBe(201);
      const { id } = created.json() as { id: number };
      expect((await server.app.inject({ method: 'GET', url: `/oauth/applications/${id}`, headers: JSON_API })).json()).toMatchObject({
        name,
      });
    }
    expect(await countRows(server, 'oauth_access_tokens')).toBeGreaterThan(0);
    expect((await post('/oauth/token', { grant_type: 'client_credentials' })).statusCode).toBe(200);
  });
});
