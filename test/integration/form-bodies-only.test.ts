import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { CALLBACK, createClient } from '../helpers/end-user.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';

// OpenID Connect Core 3.1.2.1: an authorization request sent by POST uses form serialization, as do the consent form
// and RP-initiated logout's. The app parses JSON for its JSON routes, and a JSON body reached these routes as their
// parameters (found by the HTTP hardening audit): now 415 before it is read, as the API group answers.

describe(`POST /oauth/authorize and /oauth/end_session take form bodies only (${backend})`, () => {
  let server: TestServer;
  let clientId: string;
  beforeAll(async () => {
    server = await openIdServer();
    clientId = (await createClient(server.deps, { scopes: 'openid' })).application.uid;
  });
  afterAll(() => server.close());

  const request = () => ({
    client_id: clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid',
    code_challenge: s256Challenge('v'.repeat(43)),
    code_challenge_method: 'S256',
  });
  const post = (url: string, contentType: string, payload: string) =>
    server.app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });

  it.each(['/oauth/authorize', '/oauth/end_session', '/oauth/end_session/confirm'])(
    '%s: JSON, text or XML is 415, read as nothing',
    async (url) => {
      for (const [type, payload] of [
        ['application/json', JSON.stringify(request())],
        ['application/json; charset=utf-8', JSON.stringify({ client_id: 5 })],
        ['text/plain', 'client_id=x'],
        ['application/xml', '<a/>'],
      ] as const) {
        const response = await post(url, type, payload);
        expect([type, response.statusCode]).toEqual([type, 415]);
        expect(response.body).toContain('The request body must be application/x-www-form-urlencoded.');
      }
    },
  );

  it('the same request as a form is an authorization request (a sign-in first), and a logout form is read', async () => {
    const authorization = await post('/oauth/authorize', FORM['content-type'], form(request()));
    expect([authorization.statusCode, authorization.headers.location]).toEqual([303, '/login']);
    const logout = await post('/oauth/end_session', `${FORM['content-type']}; charset=UTF-8`, form({ client_id: clientId }));
    expect([logout.statusCode, logout.headers.location]).toEqual([303, `/oauth/end_session?client_id=${clientId}`]);
  });
});
