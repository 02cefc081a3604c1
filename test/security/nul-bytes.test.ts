import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import {
  authorizeUrl,
  createClient,
  createUser,
  hiddenFields,
  locationParameters,
  signedIn,
  userAgent,
  type UserAgent,
} from '../helpers/end-user.js';
import { openIdServer } from '../helpers/openid.js';
import { type TestClient } from '../helpers/factories.js';
import { basic, expectOAuthError } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';
import { JSON_API } from '../integration/applications-support.js';
import { CALLBACK, signedInFixture } from './support.js';

// SPEC 3 and 9: no input gives a 500. A NUL byte is the one character PostgreSQL text cannot hold, so a query
// with one fails instead of finding nothing; every entry point must refuse it or never send it to storage.
// (RFC 6749 appendix A: client ids, tokens and codes are VSCHAR or NQCHAR, which exclude it.) Found by the fuzz run.

describe(`RFC 6749 section 10.14 and appendix A: NUL bytes never reach the database (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let agent: UserAgent;

  beforeAll(async () => {
    ({ server, client, agent } = await signedInFixture());
  });
  afterAll(() => server.close());

  it.each(['/oauth/token', '/oauth/revoke', '/oauth/introspect'])('POST %s with a NUL in a parameter: 400 invalid_request', async (url) => {
    const response = await server.app.inject({
      method: 'POST',
      url,
      headers: { ...FORM, ...basic(client.uid, client.secret!) },
      payload: 'grant_type=client_credentials&token=a%00b&scope=%00',
    });
    expectOAuthError(response, 400, 'invalid_request', 'The parameter token holds a NUL character.');
  });

  it('RFC 6749 appendix A: /oauth/authorize with a NUL in client_id is an unknown client on every action, shown with 401', async () => {
    const csrf = await agent.csrfFrom(authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code' }));
    const request = { client_id: `${client.uid}\u0000`, redirect_uri: CALLBACK, response_type: 'code' };
    const responses = [
      await agent.request({ method: 'GET', url: authorizeUrl(request) }),
      await agent.request({ method: 'GET', url: authorizeUrl({ ...request, client_id: '\u0000' }) }),
      await agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form({ ...request, _csrf: csrf }) }),
      await agent.request({
        method: 'POST',
        url: '/oauth/authorize',
        headers: FORM,
        payload: form({ ...request, _method: 'delete', _csrf: csrf }),
      }),
    ];
    for (const response of responses) {
      expect(response.statusCode).toBe(401);
      expect(response.headers.location).toBeUndefined();
    }
  });

  it('an application name with a NUL is a validation error (422), on create and on update', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_API,
      payload: { name: 'a\u0000b', redirect_uri: CALLBACK },
    });
    expect({ status: created.statusCode, body: created.json() }).toEqual({ status: 422, body: { errors: ['Name is invalid'] } });
    const updated = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${client.application.id}`,
      headers: JSON_API,
      payload: { name: '\u0000' },
    });
    expect(updated.statusCode).toBe(422);
  });

  // Fails until POST /login (src/http/routes/login/index.ts) stops passing the user name to users.findByUsername
  // unchecked: today the lookup fails and the answer is 500 server_error.
  it('POST /login with a NUL in the user name is answered like any unknown user (401), never a 500', async () => {
    const response = await userAgent(server.app).post('/login', { username: 'alice\u0000', password: 'x' });
    expect(response.statusCode).toBe(401);
    expect(response.body).toContain('Invalid username or password.');
  });

  it('the failed sign-in with a NUL in the user name is still in the audit trail: its subject with U+FFFD, its details exact', async () => {
    await userAgent(server.app).post('/login', { username: 'nul\u0000name', password: 'x' });
    const events = await listAuditEvents(server.deps, { type: 'user.sign_in.failed', limit: 20 });
    const event = events.find((candidate) => candidate.subjectId === 'nul\uFFFDname');
    expect(event?.details).toMatchObject({ username: 'nul\u0000name' });
  });
});

// The nonce is stored with the code: with a NUL in it, the approval failed in PostgreSQL with a 500. Every
// parameter of an authorization request is refused with a NUL now, as POST /oauth/par always did.
describe(`RFC 6749 appendix A: an authorization request with a NUL in a parameter (${backend})`, () => {
  let server: TestServer;
  let agent: UserAgent;
  let request: Record<string, string>;

  beforeAll(async () => {
    server = await openIdServer();
    const { application } = await createClient(server.deps, { redirectUri: CALLBACK, scopes: 'openid read' });
    await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
    request = { client_id: application.uid, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', state: 's' };
  });
  afterAll(() => server.close());

  const expectRefusedWithState = (response: LightMyRequestResponse, status: number, name: string) => {
    expect(response.statusCode).toBe(status);
    expect(Object.fromEntries(locationParameters(response))).toMatchObject({
      error: 'invalid_request',
      error_description: `The parameter ${name} holds a NUL character.`,
      state: 's',
    });
  };

  it.each(['nonce', 'login_hint', 'acr_values', 'ui_locales', 'display'])(
    '%s: invalid_request, redirected with the state',
    async (name) => {
      const response = await agent.request({ method: 'GET', url: authorizeUrl({ ...request, [name]: 'a\u0000b' }) });
      expectRefusedWithState(response, 302, name);
    },
  );

  it('a NUL put into the consent form after the page was shown: invalid_request on Authorize, nothing issued', async () => {
    const page = await agent.request({ method: 'GET', url: authorizeUrl({ ...request, nonce: 'n' }) });
    expect(page.statusCode).toBe(200);
    const approved = await agent.post('/oauth/authorize', { ...hiddenFields(page.body), nonce: 'n\u0000' });
    expectRefusedWithState(approved, 303, 'nonce');
    expect(locationParameters(approved).get('code')).toBeNull();
  });

  it('a resource with a NUL: invalid_request naming resource', async () => {
    const response = await agent.request({ method: 'GET', url: authorizeUrl({ ...request, resource: 'https://api.example.com/\u0000' }) });
    expectRefusedWithState(response, 302, 'resource');
  });
});
