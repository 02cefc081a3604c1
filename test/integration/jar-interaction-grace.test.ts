import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, jwksOf, privateKeyJwtClient, type ClientKey } from '../helpers/client-assertions.js';
import { authorizeUrl, createUser, hiddenFields, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// A request object sent by value (RFC 9101) bounds with its exp when the request is accepted, not how long its user
// takes: once this browser was shown the request (the consent page, a sign-in it asked for), the sign-in and the
// consent have the ten minutes a pushed request's have (INTERACTION_SECONDS). Anyone else's use of it is checked anew.

const CALLBACK = 'https://app.example.com/callback';
const EXPIRED = '&quot;exp&quot; claim timestamp check failed';

describe(`a request object's exp during the sign-in and consent it asked for (${backend})`, () => {
  let server: TestServer;
  let key: ClientKey;
  let clientId: string;
  beforeAll(async () => {
    server = await buildTestServer();
    key = await clientKey('ES256');
    clientId = (await privateKeyJwtClient(server.deps, { jwks: jwksOf(key) })).uid;
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  /** A request object valid for `seconds` more by the server's clock. */
  async function shortLived(seconds: number): Promise<string> {
    const now = Math.floor(server.clock.now.getTime() / 1000);
    const claims = { iss: clientId, aud: server.config.baseUrl.replace(/\/+$/, ''), exp: now + seconds, nbf: now, client_id: clientId };
    return new SignJWT({ ...claims, response_type: 'code', redirect_uri: CALLBACK, scope: 'read', state: 'jar' })
      .setProtectedHeader({ alg: key.alg, kid: key.kid })
      .sign(key.privateKey);
  }
  const approve = (agent: UserAgent, fields: Record<string, string>) =>
    agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form(fields) });
  const codeIn = (location: unknown) => new URL(String(location)).searchParams.get('code');

  it('the consent page shown while it was valid is approved after its exp; a form nobody was shown is checked anew', async () => {
    const agent = await signedIn(server.app, 'alice');
    const page = await agent.request({ method: 'GET', url: authorizeUrl({ client_id: clientId, request: await shortLived(30) }) });
    expect(page.statusCode).toBe(200);
    const fields = hiddenFields(page.body);
    server.clock.advance(120);
    const stranger = await signedIn(server.app, 'alice');
    const notShown = await approve(stranger, { ...fields, _csrf: await stranger.csrfFrom('/account') });
    expect(notShown.statusCode).toBe(303);
    const checkedAnew = await stranger.request({ method: 'GET', url: String(notShown.headers.location) });
    expect(checkedAnew.statusCode).toBe(400);
    expect(checkedAnew.body).toContain(EXPIRED);
    const approved = await approve(agent, fields);
    expect(approved.statusCode).toBe(303);
    expect(codeIn(approved.headers.location)).toBeTruthy();
  });

  it('the way back from the sign-in it asked for shows the consent page after its exp', async () => {
    const agent = userAgent(server.app);
    const url = authorizeUrl({ client_id: clientId, request: await shortLived(30) });
    expect((await agent.request({ method: 'GET', url })).headers.location).toBe('/login');
    server.clock.advance(120);
    const signIn = await agent.post('/login', { username: 'alice', password: PASSWORD });
    expect(signIn.headers.location).toBe(url);
    const page = await agent.request({ method: 'GET', url });
    expect(page.statusCode).toBe(200);
    expect(codeIn((await approve(agent, hiddenFields(page.body))).headers.location)).toBeTruthy();
    // The way back is taken once: the same URL again, or in another browser, is checked at the time it is used.
    expect((await agent.request({ method: 'GET', url })).body).toContain(EXPIRED);
    expect((await (await signedIn(server.app, 'alice')).request({ method: 'GET', url })).body).toContain(EXPIRED);
  });

  it('ten minutes past its exp the approval is refused, shown on the page', async () => {
    const agent = await signedIn(server.app, 'alice');
    const page = await agent.request({ method: 'GET', url: authorizeUrl({ client_id: clientId, request: await shortLived(30) }) });
    expect(page.statusCode).toBe(200);
    server.clock.advance(30 + 600 + 60);
    const late = await approve(agent, hiddenFields(page.body));
    expect(late.statusCode).toBe(400);
    expect(late.headers.location).toBeUndefined();
    expect(late.body).toContain(EXPIRED);
  });
});
