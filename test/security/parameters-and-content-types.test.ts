import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORM_PARAMETERS } from '../../src/http/plugins/forms.js';
import { authorizeUrl, countRows, type UserAgent } from '../helpers/end-user.js';
import { issueToken, type TestClient } from '../helpers/factories.js';
import { basic, expectOAuthError, isActive } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { FORM, type TestServer } from '../helpers/test-server.js';
import { CALLBACK, signedInFixture } from './support.js';

// RFC 6749 section 3.2 ("parameters MUST NOT be included more than once"), section 2.3.1 (credentials MUST NOT be
// in the request URI) and SPEC 3. The token endpoint's cases are in test/integration/rfc6749-token-errors.test.ts
// and its content types in rfc6749-malformed-requests.test.ts; these are revoke, introspect and the HTML forms.

describe(`RFC 6749 sections 2.3.1 and 3.2: duplicate and nested parameters, credentials in the query, content types (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let agent: UserAgent;

  beforeAll(async () => {
    ({ server, client, agent } = await signedInFixture());
  });
  afterAll(() => server.close());

  const asClient = () => basic(client.uid, client.secret!);
  const post = (url: string, payload: string, headers: Record<string, string> = asClient()) =>
    server.app.inject({ method: 'POST', url, headers: { ...FORM, ...headers }, payload });

  it.each(['/oauth/revoke', '/oauth/introspect'])(
    'RFC 6749 section 3.2: %s with token twice, token[] or token[x] is invalid_request and revokes nothing',
    async (url) => {
      const live = await issueToken(server.deps, { application: client.application });
      for (const [payload, description] of [
        [`token=${live.accessToken}&token=${live.accessToken}`, 'The parameter token was sent more than once.'],
        [`token[]=${live.accessToken}`, 'The parameter token[] is not accepted: parameters are not nested.'],
        [`token[x]=${live.accessToken}`, 'The parameter token[x] is not accepted: parameters are not nested.'],
      ] as const) {
        expectOAuthError(await post(url, payload), 400, 'invalid_request', description);
      }
      expect(await isActive(server.app, live.accessToken, asClient())).toBe(true);
    },
  );

  it.each(['/oauth/revoke', '/oauth/introspect'])(
    'RFC 6749 section 2.3.1: %s with client_id or client_secret in the query string is invalid_request',
    async (url) => {
      const live = await issueToken(server.deps, { application: client.application });
      for (const query of [
        `client_id=${client.uid}`,
        `client_secret=${client.secret}`,
        `client_id=${client.uid}&client_secret=${client.secret}`,
      ]) {
        const response = await post(
          `${url}?${query}`,
          `token=${live.accessToken}`,
          query.includes('client_secret') && !query.includes('client_id') ? asClient() : {},
        );
        const named = query.startsWith('client_id') ? 'client_id' : 'client_secret';
        expectOAuthError(response, 400, 'invalid_request', `The parameter ${named} must not be sent in the query string.`);
      }
      expect(await isActive(server.app, live.accessToken, asClient())).toBe(true);
    },
  );

  it(`RFC 6749 section 3.2: a parameter repeated after the ${MAX_FORM_PARAMETERS}th is still refused, never hidden by truncation`, async () => {
    const filler = Array.from({ length: MAX_FORM_PARAMETERS + 20 }, (_, i) => `p${i}=1`).join('&');
    const smuggled = await post('/oauth/token', `grant_type=client_credentials&${filler}&grant_type=password`);
    expect(smuggled.statusCode).toBe(400);
    expect(smuggled.json()).toEqual({
      error: 'invalid_request',
      error_description: `The form has more than ${MAX_FORM_PARAMETERS} parameters.`,
    });
  });

  it('POST forms of the HTML pages with a content type other than a form are refused and change nothing', async () => {
    const csrf = await agent.csrfFrom(authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code' }));
    const fields = `client_id=${client.uid}&redirect_uri=${encodeURIComponent(CALLBACK)}&response_type=code&_csrf=${csrf}`;
    const grants = await countRows(server, 'oauth_access_grants');
    const types = [
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/x-www-form-urlencoded-evil',
      'application/json',
      '',
    ];
    for (const url of ['/oauth/authorize', '/login', '/logout', `/oauth/authorized_applications/${client.application.id}`]) {
      for (const type of types) {
        const response = await agent.request({ method: 'POST', url, headers: type ? { 'content-type': type } : {}, payload: fields });
        expect(response.statusCode, `${url} ${type}`).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, `${url} ${type}`).toBeLessThan(500);
        expect(response.headers.location, `${url} ${type}`).toBeUndefined();
      }
    }
    expect(await countRows(server, 'oauth_access_grants')).toBe(grants);
    // Still signed in: the refused POST /logout did not end the session.
    expect((await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).statusCode).toBe(200);
  });
});
