import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCode, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { BASIC_CHALLENGE, basic, expectNoStore, expectOAuthError, type Params, TEXT, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Requests that are not well-formed OAuth: the seed's 415 rule, malformed HTTP Basic credentials (RFC 7617,
// RFC 6749 section 2.3.1) and a battery of hostile inputs. SPEC 3 and 9: no input makes any endpoint answer 500.

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe(`malformed requests to the API group on ${backend}`, () => {
  let server: TestServer;
  let client: TestClient;
  let user: { id: number; username: string; password: string };

  beforeAll(async () => {
    // Hundreds of failed client authentications from one address: the lockout is tested in api-rate-limits.test.ts.
    server = await buildTestServer({
      config: { grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', 'password'], rateLimit: { enabled: false } },
    });
    client = await createClient(server.deps);
    user = await createUser(server.deps);
  });
  afterAll(() => server.close());

  const asClient = () => basic(client.uid, client.secret!);

  describe('415 for bodies that are not application/x-www-form-urlencoded (seed, Endpoints; SPEC 3)', () => {
    const paths = ['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth/token/info'];
    const unsupported = { error: 'invalid_request', error_description: 'The request body must be application/x-www-form-urlencoded.' };

    // The router decodes a path: a percent-encoded one reaches the same endpoint, under the same rule.
    const encoded = [
      ['POST', '/oauth/%74oken'],
      ['POST', '/%6Fauth/token'],
      ['POST', '/oauth/intros%70ect'],
      ['POST', '/oauth/%72evoke'],
      ['PUT', '/oauth/%74oken'],
      ['PATCH', '/oauth/token/%69nfo'],
    ] as const;
    it.each([...paths.flatMap((url) => (['POST', 'PUT', 'PATCH'] as const).map((method) => [method, url] as const)), ...encoded])(
      '%s %s with a JSON body is 415, whether or not the path serves the method',
      async (method, url) => {
        const response = await server.app.inject({
          method,
          url,
          headers: { 'content-type': 'application/json', ...asClient() },
          payload: JSON.stringify({ grant_type: 'client_credentials', token: 'x' }),
        });
        expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 415, body: unsupported });
        expectNoStore(response);
      },
    );

    it('POST /oauth/token#fragment sent over the wire (Node.js keeps the fragment in the URL) with a JSON body is 415', async () => {
      const address = new URL(await server.app.listen({ port: 0, host: '127.0.0.1' }));
      const body = JSON.stringify({ grant_type: 'client_credentials' });
      const head = [
        'POST /oauth/token#fragment HTTP/1.1',
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `Authorization: ${asClient().authorization}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
      ];
      const answer = await new Promise<string>((resolve, reject) => {
        let received = '';
        const socket = connect(Number(address.port), address.hostname, () => socket.end(`${head.join('\r\n')}\r\n\r\n${body}`));
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
      expect(answer.split('\r\n', 1)[0]).toBe('HTTP/1.1 415 Unsupported Media Type');
    });

    it.each([
      ['text/plain', 'grant_type=client_credentials'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--'],
      ['application/x-www-form-urlencoded-but-not', 'grant_type=client_credentials'],
    ])('POST /oauth/token with Content-Type %s is 415', async (contentType, payload) => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': contentType, ...asClient() },
        payload,
      });
      expect(response.statusCode).toBe(415);
    });

    it('the device authorization path of a server without the device flow is no API path: a JSON body gets 404, not 415', async () => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/device_authorization',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expect({ status: response.statusCode, error: response.json().error }).toEqual({ status: 404, error: 'not_found' });
    });

    it('POST /oauth/token without a Content-Type is 415', async () => {
      const response = await server.app.inject({ method: 'POST', url: '/oauth/token', headers: asClient() });
      expect(response.statusCode).toBe(415);
    });

    it('a form body with a charset parameter is accepted', async () => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8', ...asClient() },
        payload: 'grant_type=client_credentials',
      });
      expect(response.statusCode).toBe(200);
    });

    it('PUT /oauth/token with a form body is 404: the path does not serve PUT', async () => {
      const response = await server.app.inject({
        method: 'PUT',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
      expect(response.statusCode).toBe(404);
    });
  });

  describe('malformed HTTP Basic credentials are 401 invalid_client, never 500 (SPEC 8)', () => {
    const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64');
    const malformed: Array<[string, string]> = [
      ['no credentials after the scheme', 'Basic'],
      ['garbage instead of base64', 'Basic !!!not-base64!!!'],
      ['base64 with two parts', `Basic ${b64('a:b')} ${b64('c:d')}`],
      ['base64 of a value without a colon', `Basic ${b64('just-an-id')}`],
      ['base64 of bytes that are not UTF-8', `Basic ${b64(Buffer.from([0xff, 0xfe, 0x3a, 0x61]))}`],
      ['an empty client id', `Basic ${b64(':secret')}`],
      ['a bad percent-encoding', `Basic ${b64('%ZZ:secret')}`],
      ['a NUL byte in the client id', `Basic ${b64('id\u0000:secret')}`],
      ['a very long value', `Basic ${'QUFB'.repeat(2000)}`],
    ];
    const endpoints: Array<[string, Params]> = [
      ['/oauth/token', { grant_type: 'client_credentials' }],
      ['/oauth/revoke', { token: 'x' }],
      ['/oauth/introspect', { token: 'x' }],
    ];

    it.each(endpoints.flatMap(([url, params]) => malformed.map(([label, header]) => [url, label, header, params] as const)))(
      'POST %s with %s',
      async (url, _label, authorization, params) => {
        const response = await server.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
          payload: new URLSearchParams(params as Record<string, string>).toString(),
        });
        expectOAuthError(response, 401, 'invalid_client', TEXT.invalidClient);
        expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
      },
    );

    it('the Basic scheme name is case-insensitive (RFC 7235 section 2.1)', async () => {
      const header = asClient().authorization!.replace('Basic', 'bAsIc');
      const response = await tokenRequest(server.app, { grant_type: 'client_credentials' }, { authorization: header });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('hostile input never gives a 500 (SPEC 3 and 9)', () => {
    const ODD_VALUES = [
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      "' OR '1'='1",
      "'; DROP TABLE oauth_access_tokens; --",
      '\\',
      '%',
      '%00',
      '%ZZ',
      '\u{1F600}',
      '日本語',
      'é',
      '\ud800',
      '\r\n',
      '\t',
      '\u202e',
      'x'.repeat(8000),
      'read '.repeat(1500),
      '../../etc/passwd',
      '{"$ne":null}',
      'null',
      '__proto__',
      '[]',
      '-1',
      '1e309',
      'S256',
      'refresh_token',
    ];
    type Baseline = { url: string; params: Params; headers?: Record<string, string> };
    const baselines: Array<[string, () => Promise<Baseline>]> = [
      [
        'client_credentials (Basic)',
        async () => ({ url: '/oauth/token', params: { grant_type: 'client_credentials', scope: 'read' }, headers: asClient() }),
      ],
      [
        'client_credentials (client_secret_post)',
        async () => ({
          url: '/oauth/token',
          params: { grant_type: 'client_credentials', client_id: client.uid, client_secret: client.secret! },
        }),
      ],
      [
        'authorization_code',
        async () => {
          const grant = await createCode(server.deps, {
            application: client.application,
            resourceOwnerId: user.id,
            codeChallenge: CHALLENGE,
            codeChallengeMethod: 'S256',
          });
          return {
            url: '/oauth/token',
            params: { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: VERIFIER },
            headers: asClient(),
          };
        },
      ],
      [
        'refresh_token',
        async () => {
          const issued = await issueToken(server.deps, {
            application: client.application,
            resourceOwnerId: user.id,
            withRefreshToken: true,
          });
          return {
            url: '/oauth/token',
            params: { grant_type: 'refresh_token', refresh_token: issued.refreshToken!, scope: 'read' },
            headers: asClient(),
          };
        },
      ],
      [
        'password',
        async () => ({
          url: '/oauth/token',
          params: { grant_type: 'password', username: user.username, password: user.password },
          headers: asClient(),
        }),
      ],
      [
        'revoke',
        async () => {
          const issued = await issueToken(server.deps, { application: client.application });
          return { url: '/oauth/revoke', params: { token: issued.accessToken, token_type_hint: 'access_token' }, headers: asClient() };
        },
      ],
      [
        'introspect',
        async () => {
          const issued = await issueToken(server.deps, { application: client.application });
          return { url: '/oauth/introspect', params: { token: issued.accessToken, token_type_hint: 'access_token' }, headers: asClient() };
        },
      ],
    ];

    // Runs the requests a few at a time and returns those answered with a 5xx.
    async function serverErrors(requests: Array<[string, () => Promise<{ statusCode: number }>]>): Promise<string[]> {
      const failures: string[] = [];
      for (let start = 0; start < requests.length; start += 8) {
        await Promise.all(
          requests.slice(start, start + 8).map(async ([label, send]) => {
            const { statusCode } = await send();
            if (statusCode >= 500) failures.push(`${label} -> ${statusCode}`);
          }),
        );
      }
      return failures;
    }

    it.each(baselines)('POST %s: every parameter replaced by each odd value', async (_label, baseline) => {
      const names = Object.keys((await baseline()).params).concat(['client_id', 'client_secret', 'scope', 'token_type_hint']);
      const requests = [...new Set(names)].flatMap((name) =>
        ODD_VALUES.map((value): [string, () => Promise<{ statusCode: number }>] => [
          `${name}=${JSON.stringify(value).slice(0, 30)}`,
          async () => {
            const { url, params, headers } = await baseline();
            return server.app.inject({
              method: 'POST',
              url,
              headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
              payload: new URLSearchParams({ ...params, [name]: value }).toString(),
            });
          },
        ]),
      );
      expect(await serverErrors(requests)).toEqual([]);
    });

    it.each(['/oauth/token', '/oauth/revoke', '/oauth/introspect'])('POST %s: odd raw bodies and parameter names', async (url) => {
      const bodies: Array<string | Buffer> = [
        '',
        '&',
        '=',
        '&&&',
        '=&=',
        'grant_type',
        'grant_type=',
        'token',
        '%',
        '%ZZ=%ZZ',
        'a=b=c',
        '__proto__=x&constructor=y&toString=z',
        'hasOwnProperty=1&token=x&grant_type=client_credentials',
        '[]=1',
        'token[]=x',
        'token[a][b]=x',
        'a[=1',
        Buffer.from([0xff, 0xfe, 0xfd, 0x3d, 0xc3, 0x28]),
        `token=${'%00'.repeat(100)}`,
        Array.from({ length: 300 }, (_, i) => `p${i}=${i}`).join('&'),
        `token=${'a'.repeat(20_000)}`,
      ];
      const requests = bodies.map((payload): [string, () => Promise<{ statusCode: number }>] => [
        JSON.stringify(payload.toString()).slice(0, 40),
        () =>
          server.app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...asClient() },
            payload,
          }),
      ]);
      expect(await serverErrors(requests)).toEqual([]);
    });

    it('a body over bodyLimit is 413 invalid_request', async () => {
      const response = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'a'.repeat(20_000) }, asClient());
      expectOAuthError(response, 413, 'invalid_request', 'The request body is too large.');
    });

    it.each(['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth/token/info'])('%s: odd Authorization headers', async (url) => {
      const headers = [
        'Bearer',
        'Bearer ',
        'Bearer a b',
        `Bearer ${'x'.repeat(8000)}`,
        'Bearer %00',
        "Bearer ' OR 1=1 --",
        'Digest x',
        'Basic',
        'Basic =',
        'Basic ====',
        `Basic ${Buffer.from('\u0000:\u0000').toString('base64')}`,
        `Basic ${Buffer.from(`${client.uid}:${'\u0000'}`).toString('base64')}`,
        'Negotiate',
        ',',
        'Bearer\tabc',
        'basic\tabc',
      ];
      const method = url === '/oauth/token/info' ? 'GET' : 'POST';
      const requests = headers.map((authorization): [string, () => Promise<{ statusCode: number }>] => [
        JSON.stringify(authorization).slice(0, 40),
        () =>
          server.app.inject({
            method,
            url,
            headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
            payload: method === 'POST' ? 'grant_type=client_credentials&token=x' : undefined,
          }),
      ]);
      expect(await serverErrors(requests)).toEqual([]);
    });
  });
});
