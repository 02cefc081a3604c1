import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistrationToken } from '../../src/oauth/clients/registration/registration-tokens.js';
import { createUser, signedIn } from '../helpers/end-user.js';
import { bearer } from '../helpers/oauth-requests.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// A HEAD of a GET that changes something is 405 with Allow (RFC 9110 sections 9.3.2, 15.5.6): Fastify answered it
// with the GET handler and dropped the body, so a HEAD of an RFC 7592 read rotated the registration access token and
// lost the new one (the client locked out of its registration), and one of end_session signed the user out. Found by a
// black-box probe.

describe(`HEAD of a GET that changes something (${backend})`, () => {
  let server: TestServer;
  let initialToken: string;
  beforeAll(async () => {
    server = await openIdServer({ config: { registration: { policy: 'initialAccessToken' } } });
    await createUser(server.deps, 'alice');
    initialToken = (await createRegistrationToken(server.deps, { uses: null, expiresInSeconds: null })).plainToken;
  });
  afterAll(() => server.close());

  it('RFC 7592: a HEAD of the registration is 405, and the registration access token still reads it', async () => {
    const registered = await server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json', ...bearer(initialToken) },
      payload: { redirect_uris: ['http://127.0.0.1:8765/callback'], token_endpoint_auth_method: 'none' },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const { client_id: clientId, registration_access_token: token } = registered.json();
    const url = `/oauth/register/${clientId}`;
    const head = await server.app.inject({ method: 'HEAD', url, headers: bearer(token) });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe('GET, PUT, DELETE');
    const read = await server.app.inject({ method: 'GET', url, headers: bearer(token) });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().client_id).toBe(clientId);
  });

  it('a HEAD of end_session signs nobody out; a HEAD of the authorization endpoint is 405 too', async () => {
    const agent = await signedIn(server.app, 'alice');
    const head = await agent.request({ method: 'HEAD', url: '/oauth/end_session' });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe('GET, POST');
    expect((await agent.request({ method: 'GET', url: '/account' })).statusCode).toBe(200);
    const authorize = await agent.request({ method: 'HEAD', url: '/oauth/authorize?client_id=x' });
    expect(authorize.statusCode).toBe(405);
    expect(authorize.headers.allow).toBe('GET, POST, DELETE');
  });
});
