import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { OOB_URI } from '../../src/oauth/authorization/redirect-uri.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { authorizeUrl, createClient, createUser, hiddenFields, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

describe(`/oauth/authorize with the out-of-band redirect URI and GET /oauth/authorize/native (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let agent: UserAgent;

  beforeAll(async () => {
    server = await buildTestServer();
    await createUser(server.deps, 'alice');
    client = (await createClient(server.deps, { name: 'Native App', redirectUri: OOB_URI })).application;
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const consent = (parameters: Record<string, string> = {}) =>
    agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: client.uid, redirect_uri: OOB_URI, response_type: 'code', ...parameters }),
    });

  it('approval goes to /oauth/authorize/native?code=..., which shows the plain code (hashed in storage)', async () => {
    const page = await consent({ state: 'not-carried' });
    expect(page.statusCode).toBe(200);
    const response = await agent.post('/oauth/authorize', hiddenFields(page.body, 0));
    expect(response.statusCode).toBe(303);
    const location = String(response.headers.location);
    expect(location).toMatch(/^\/oauth\/authorize\/native\?code=[A-Za-z0-9_-]{43}$/);
    const code = new URL(location, 'http://x').searchParams.get('code')!;
    expect(await server.deps.stores.accessGrants.findByToken(sha256Hex(code))).toMatchObject({ redirectUri: OOB_URI });

    const native = await agent.request({ method: 'GET', url: location });
    expect(native.statusCode).toBe(200);
    expect(native.headers['x-frame-options']).toBe('DENY');
    expect(native.headers['cache-control']).toBe('no-store');
    expect(native.body).toContain('<h1>Authorization code:</h1>');
    expect(native.body).toContain(`<code id="authorization_code">${code}</code>`);
    expect(native.body).not.toContain(sha256Hex(code));
  });

  it('errors for an out-of-band redirect URI are shown, not redirected (reference 4.5)', async () => {
    const invalidScope = await consent({ scope: 'admin' });
    expect(invalidScope.statusCode).toBe(400);
    expect(invalidScope.headers.location).toBeUndefined();
    expect(invalidScope.body).toContain('The requested scope is invalid, unknown, or malformed.');
    const denied = await agent.post('/oauth/authorize', hiddenFields((await consent()).body, 1));
    expect(denied.statusCode).toBe(400);
    expect(denied.headers.location).toBeUndefined();
    expect(denied.body).toContain('The resource owner or authorization server denied the request.');
  });

  it('the native page escapes what it shows and requires a login', async () => {
    const shown = await agent.request({ method: 'GET', url: `/oauth/authorize/native?code=${encodeURIComponent('<script>x</script>')}` });
    expect(shown.body).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(shown.body).not.toContain('<script>x');
    const missing = await agent.request({ method: 'GET', url: '/oauth/authorize/native' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('Missing required parameter: code.');
    const anonymous = await userAgent(server.app).request({ method: 'GET', url: '/oauth/authorize/native?code=abc' });
    expect(anonymous.statusCode).toBe(302);
    expect(anonymous.headers.location).toBe('/login');
  });
});
