import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, type TestClient } from '../helpers/factories.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { basic, introspectRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// beforeTokenResponse runs once the token is stored. A hook that failed then answered 500, and the grant the client had
// just used (a code, a refresh token rotated away) was lost with the token it never saw (an extensions audit). The
// client gets the body as the grant made it, and the failure is logged naming the hook.

describe(`a beforeTokenResponse hook that fails (${backend})`, () => {
  const log = capturedLogLines();
  let server: TestServer;
  let client: TestClient;
  let user: Awaited<ReturnType<typeof createUser>>;
  let answer: () => unknown = () => undefined;

  beforeAll(async () => {
    server = await buildTestServer({
      config: { grantFlows: ['password', 'refresh_token', 'client_credentials'], log: { format: 'json', level: 'info' } },
      logStream: log.stream,
      extensions: { beforeTokenResponse: () => answer() as void },
    });
    client = await createClient(server.deps);
    user = await createUser(server.deps);
  });
  afterAll(() => server.close());

  const password = () =>
    tokenRequest(
      server.app,
      { grant_type: 'password', username: user.username, password: user.password },
      basic(client.uid, client.secret!),
    );
  const refresh = (token: string) =>
    tokenRequest(server.app, { grant_type: 'refresh_token', refresh_token: token }, basic(client.uid, client.secret!));

  it.each([
    [
      'throws',
      () =>
        (answer = () => {
          throw new Error('directory down');
        }),
      'directory down',
    ],
    ['answers a string', () => (answer = () => 'hello'), 'the beforeTokenResponse hook returned string, not an object'],
    ['answers an array', () => (answer = () => ['x']), 'the beforeTokenResponse hook returned an array, not an object'],
    [
      'answers expires_in "soon"',
      () => (answer = () => ({ expires_in: 'soon' })),
      'the beforeTokenResponse hook returned expires_in: soon, not a whole number',
    ],
    [
      'answers a cycle',
      () =>
        (answer = () => {
          const body: Record<string, unknown> = {};
          body.self = body;
          return body;
        }),
      'cannot be written as JSON',
    ],
  ])('that %s: the refresh still answers its new pair, as the grant made it, and the failure is logged', async (_case, set, message) => {
    answer = () => undefined;
    const first = (await password()).json();
    set();
    log.clear();
    const refreshed = await refresh(first.refresh_token);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(Object.keys(refreshed.json()).sort()).toEqual([
      'access_token',
      'created_at',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    expect(
      (await introspectRequest(server.app, { token: refreshed.json().access_token }, basic(client.uid, client.secret!))).json().active,
    ).toBe(true);
    const failure = log.lines.find((line) => line.event === 'extension.failed');
    expect(failure).toMatchObject({ hook: 'beforeTokenResponse', msg: 'the beforeTokenResponse extension hook failed' });
    expect(JSON.stringify(failure)).toContain(message);
    // On the request's own line: the reqId a caller reports finds it beside the token it got.
    expect(failure!.reqId).toEqual(expect.any(String));
    expect(log.lines.filter((line) => line.reqId === failure!.reqId).map((line) => line.event)).toContain('token.issued');
  });

  it("a hook that changes the body in place and then throws leaves the grant's body whole", async () => {
    answer = () => undefined;
    const first = (await password()).json();
    server.deps.hooks.beforeTokenResponse = (body) => {
      body.refresh_token = 'half-changed';
      throw new Error('after a change');
    };
    const refreshed = (await refresh(first.refresh_token)).json();
    expect(refreshed.refresh_token).not.toBe('half-changed');
    expect((await refresh(refreshed.refresh_token)).statusCode).toBe(200);
  });
});
