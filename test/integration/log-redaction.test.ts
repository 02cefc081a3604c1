import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLogLines } from '../helpers/log-lines.js';
import { createClient, createCode, createUser } from '../helpers/factories.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// STYLE 15 and the guide's "no secrets in logs": run real flows at debug level and search every log line.
describe('logs never contain secrets', () => {
  const log = capturedLogLines();
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { log: { level: 'trace', format: 'json' } }, logStream: log.stream });
  });
  afterAll(() => server.close());

  it('client secrets, codes, verifiers, access and refresh tokens and passwords stay out of every line', async () => {
    const client = await createClient(server.deps);
    const user = await createUser(server.deps);
    const grant = await createCode(server.deps, { application: client.application, resourceOwnerId: user.id });
    const secrets = [client.secret!, grant.code, user.password];
    const exchange = await server.app.inject({
      method: 'POST',
      url: '/oauth/token?state=xyz',
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!), cookie: 'oauth_session=secret-cookie' },
      payload: form({ grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri }),
    });
    expect(exchange.statusCode).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = exchange.json();
    secrets.push(accessToken, refreshToken, 'secret-cookie');
    await server.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: { ...FORM, authorization: `Bearer ${accessToken}` },
      payload: form({ token: accessToken }),
    });
    await server.app.inject({
      method: 'GET',
      url: `/oauth/token/info?access_token=${accessToken}`,
      headers: { authorization: `Bearer ${accessToken}` },
    });
    await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.uid, client_secret: client.secret! }),
    });
    // With the plain PKCE method, the challenge is the verifier (finding 9): it stays out of the request log.
    const plainVerifier = 'plain-verifier-0123456789-0123456789-0123456789';
    await server.app.inject({
      method: 'GET',
      url: `/oauth/authorize?client_id=${client.uid}&response_type=code&redirect_uri=${encodeURIComponent(grant.redirectUri)}&code_challenge=${plainVerifier}&code_challenge_method=plain`,
    });
    secrets.push(plainVerifier);
    // An ID token given as a hint, a request object and a login hint (an e-mail address) stay out of the URL too.
    const hints = { id_token_hint: 'eyJ.hint-of-an-id-token.sig', request: 'eyJ.a-request-object.sig', login_hint: 'alice@example.com' };
    await server.app.inject({ method: 'GET', url: `/oauth/authorize?client_id=${client.uid}&${new URLSearchParams(hints).toString()}` });
    await server.app.inject({ method: 'GET', url: `/logout?id_token_hint=${hints.id_token_hint}` });
    secrets.push(...Object.values(hints), encodeURIComponent(hints.login_hint));
    expect(log.raw.length).toBeGreaterThan(5);
    const text = log.raw.join('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).toContain('[Redacted]');
  });

  it('redacts secrets in request data a handler logs whole, and keeps the code of a logged error', async () => {
    log.clear();
    const headers = { authorization: 'Basic c2VjcmV0', cookie: 'oauth_session=secret-cookie', accept: 'text/html' };
    const body = { grant_type: 'password', password: 'hunter2-secret', client_assertion: 'eyJ.assertion.signature' };
    server.app.log.info({ body, headers }, 'handler logged the request');
    server.app.log.error({ err: Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' }) }, 'database unavailable');
    const [logged, failed] = log.lines as Array<Record<string, any>>;
    expect(logged!.body).toEqual({ grant_type: 'password', password: '[Redacted]', client_assertion: '[Redacted]' });
    expect(logged!.headers).toEqual({ authorization: '[Redacted]', cookie: '[Redacted]', accept: 'text/html' });
    expect(failed!.err.code).toBe('ECONNREFUSED');
  });

  // The server reads a percent-encoded parameter name decoded (%61ccess_token is access_token): so does the redaction.
  it('GET /oauth/userinfo?%61ccess_token= and /oauth/authorize?%73tate=&%6cogin_hint= keep the values out of every line', async () => {
    log.clear();
    const secrets = ['an-access-token-in-an-encoded-name', 'a-state-in-an-encoded-name', 'alice-encoded@example.com'];
    await server.app.inject({ method: 'GET', url: `/oauth/userinfo?%61ccess_token=${secrets[0]}` });
    await server.app.inject({
      method: 'GET',
      url: `/oauth/authorize?client_id=unknown&%73tate=${secrets[1]}&%6cogin_hint=${encodeURIComponent(secrets[2]!)}`,
    });
    await server.app.inject({ method: 'GET', url: `/oauth/token/info?%61ccess%5ftoken=${secrets[0]}&%zz=1` });
    const completed = log.lines.filter((line) => line.msg === 'request completed');
    const text = log.raw.join('\n');
    for (const secret of [...secrets, encodeURIComponent(secrets[2]!)]) expect(text).not.toContain(secret);
    expect(completed.map((line) => (line.req as { url: string }).url)).toEqual([
      '/oauth/userinfo?%61ccess_token=[Redacted]',
      '/oauth/authorize?client_id=unknown&%73tate=[Redacted]&%6cogin_hint=[Redacted]',
      '/oauth/token/info?%61ccess%5ftoken=[Redacted]&%zz=1',
    ]);
  });

  it("a refused request at a client's endpoint names the client it claimed (never its secret); a page's refusal names none", async () => {
    const client = await createClient(server.deps);
    log.clear();
    const replay = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret!) },
      payload: form({ grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' }),
    });
    expect(replay.statusCode).toBe(400);
    expect(log.lines.find((line) => line.oauthError === 'invalid_grant')).toMatchObject({ clientId: client.uid });
    expect(log.raw.join('\n')).not.toContain(client.secret!);
    log.clear();
    await server.app.inject({ method: 'GET', url: '/oauth/applications/1', headers: { authorization: basicAuth('admin', 'wrong') } });
    expect(log.lines.filter((line) => 'clientId' in line && line.msg !== 'client authentication failed')).toEqual([]);
  });

  // Fastify refuses a path it cannot decode before routing; its error's message and stack quote the URL whole.
  it('a malformed path (/x%zz?access_token=...) is logged as its request line, the value redacted', async () => {
    log.clear();
    const secret = 'a-token-beside-a-malformed-path';
    const response = await server.app.inject({ method: 'GET', url: `/oauth/register/a%zz?access_token=${secret}` });
    expect(response.statusCode).toBe(400);
    expect(log.raw.join('\n')).not.toContain(secret);
    expect(log.lines.find((line) => line.msg === 'malformed request line')).toMatchObject({
      req: { method: 'GET', url: '/oauth/register/a%zz?access_token=[Redacted]' },
      res: { statusCode: 400 },
      fastifyError: 'FST_ERR_BAD_URL',
    });
  });
});
