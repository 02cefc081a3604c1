import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLogLines } from '../helpers/log-lines.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// docs/operations.md "Logs": the server reads a percent-encoded parameter name decoded (%61ccess_token is
// access_token), so the request log redacts it under that name too.
describe('request log lines redact percent-encoded secret parameter names', () => {
  const log = capturedLogLines();
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { log: { level: 'debug', format: 'json' } }, logStream: log.stream });
  });
  afterAll(() => server.close());

  it('GET /oauth/userinfo?%61ccess_token= and /oauth/authorize?%73tate=&%6cogin_hint= keep the values out of every line', async () => {
    const secrets = ['an-access-token-in-an-encoded-name', 'a-state-in-an-encoded-name', 'alice-encoded@example.com'];
    await server.app.inject({ method: 'GET', url: `/oauth/userinfo?%61ccess_token=${secrets[0]}` });
    await server.app.inject({
      method: 'GET',
      url: `/oauth/authorize?client_id=unknown&%73tate=${secrets[1]}&%6cogin_hint=${encodeURIComponent(secrets[2]!)}`,
    });
    await server.app.inject({ method: 'GET', url: `/oauth/token/info?%61ccess%5ftoken=${secrets[0]}&%zz=1` });
    const completed = log.lines.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(3);
    const text = log.raw.join('\n');
    for (const secret of [...secrets, encodeURIComponent(secrets[2]!)]) expect(text).not.toContain(secret);
    expect(completed.map((line) => (line.req as { url: string }).url)).toEqual([
      '/oauth/userinfo?%61ccess_token=[Redacted]',
      '/oauth/authorize?client_id=unknown&%73tate=[Redacted]&%6cogin_hint=[Redacted]',
      '/oauth/token/info?%61ccess%5ftoken=[Redacted]&%zz=1',
    ]);
  });
});
