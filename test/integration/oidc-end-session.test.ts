import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, csrfTokenIn, hiddenFields, signedIn, type UserAgent } from '../helpers/end-user.js';
import { codeFlow, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';

// RP-Initiated Logout 1.0: end_session_endpoint with id_token_hint, a registered post_logout_redirect_uri and
// state; a confirmation page when the hint is missing or names someone else; never a redirect elsewhere.

const AFTER_LOGOUT = 'https://client.example.com/signed-out';

describe(`end_session_endpoint (${backend})`, () => {
  let server: TestServer;
  let client: Awaited<ReturnType<typeof createClient>>;
  beforeAll(async () => {
    server = await openIdServer();
    await createUser(server.deps, 'alice');
    await createUser(server.deps, 'bob');
    client = await createClient(server.deps);
    await server.deps.stores.applicationAdmin.update(client.application.id, { postLogoutRedirectUris: [AFTER_LOGOUT] });
  });
  afterAll(() => server.close());

  const idTokenOf = async (agent: UserAgent) => (await codeFlow(server, agent, client)).response.json().id_token as string;
  const endSession = (agent: UserAgent, parameters: Record<string, string>) =>
    agent.request({ method: 'GET', url: `/oauth/end_session?${form(parameters)}` });
  const signedInStill = async (agent: UserAgent) =>
    (await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).statusCode === 200;
  const expectErrorPage = (response: LightMyRequestResponse, description: string) => {
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain(description);
  };

  it('is advertised in the discovery document', async () => {
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json();
    expect(metadata.end_session_endpoint).toBe(`${server.config.baseUrl.replace(/\/$/, '')}/oauth/end_session`);
  });

  it('a valid hint for the signed-in user logs out at once and goes to the registered URI with state', async () => {
    const agent = await signedIn(server.app, 'alice');
    const hint = await idTokenOf(agent);
    const response = await endSession(agent, { id_token_hint: hint, post_logout_redirect_uri: AFTER_LOGOUT, state: 'a b&c' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${AFTER_LOGOUT}?state=a+b%26c`);
    expect(await signedInStill(agent)).toBe(false);
  });

  it('state joins a registered query as it is written, and replaces a registered state', async () => {
    const withQuery = 'https://client.example.com/bye?x&y=a%20b&state=old';
    const other = await createClient(server.deps);
    await server.deps.stores.applicationAdmin.update(other.application.id, { postLogoutRedirectUris: [withQuery] });
    const agent = await signedIn(server.app, 'alice');
    const response = await endSession(agent, { client_id: other.application.uid, post_logout_redirect_uri: withQuery, state: 'new' });
    const confirmed = await agent.post('/oauth/end_session/confirm', {
      ...hiddenFields(response.body),
      _csrf: csrfTokenIn(response.body)!,
    });
    expect(confirmed.headers.location).toBe('https://client.example.com/bye?x&y=a%20b&state=new');
  });

  it('POST from the relying party works like GET (Logout 1.0 section 2)', async () => {
    const agent = await signedIn(server.app, 'alice');
    const hint = await idTokenOf(agent);
    const response = await agent.request({
      method: 'POST',
      url: '/oauth/end_session',
      headers: FORM,
      payload: form({ id_token_hint: hint, post_logout_redirect_uri: AFTER_LOGOUT }),
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(AFTER_LOGOUT);
    expect(await signedInStill(agent)).toBe(false);
  });

  it("a POST without the session cookie (a form on the relying party's site: SameSite=Lax keeps the cookie back) is sent on as a GET, which carries it", async () => {
    const agent = await signedIn(server.app, 'alice');
    const hint = await idTokenOf(agent);
    const parameters = { id_token_hint: hint, post_logout_redirect_uri: AFTER_LOGOUT, state: 'cross site' };
    const posted = await server.app.inject({ method: 'POST', url: '/oauth/end_session', headers: FORM, payload: form(parameters) });
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe(`/oauth/end_session?${new URLSearchParams(parameters).toString()}`);
    // A cookie set here would replace the browser's session cookie before the GET that is to find it.
    expect(posted.headers['set-cookie']).toBeUndefined();
    expect(await signedInStill(agent)).toBe(true);
    const followed = await agent.request({ method: 'GET', url: String(posted.headers.location) });
    expect([followed.statusCode, followed.headers.location]).toEqual([303, `${AFTER_LOGOUT}?state=cross+site`]);
    expect(await signedInStill(agent)).toBe(false);
  });

  it('an unregistered post_logout_redirect_uri is shown as an error, never followed, and the session stays', async () => {
    const agent = await signedIn(server.app, 'alice');
    const hint = await idTokenOf(agent);
    for (const uri of ['https://evil.example/', `${AFTER_LOGOUT}/`, `${AFTER_LOGOUT}?x=1`]) {
      expectErrorPage(
        await endSession(agent, { id_token_hint: hint, post_logout_redirect_uri: uri }),
        'The post_logout_redirect_uri is not registered for this application.',
      );
    }
    expectErrorPage(
      await endSession(agent, { post_logout_redirect_uri: AFTER_LOGOUT }),
      'A post_logout_redirect_uri needs an id_token_hint or a client_id.',
    );
    expect(await signedInStill(agent)).toBe(true);
  });

  it('a tampered or foreign hint, or a client_id that disagrees with it, is an error', async () => {
    const agent = await signedIn(server.app, 'alice');
    const hint = await idTokenOf(agent);
    const [header, payload, signature] = hint.split('.');
    const tampered = `${header}.${payload}.${signature!.startsWith('A') ? 'B' : 'A'}${signature!.slice(1)}`;
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    // Other JWTs this server signs for the client: a logout token, a signed UserInfo answer (no iat, no exp).
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { iss: string; aud: string; sub: string };
    const logoutToken = await server.deps.signer.sign(
      { ...claims, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } },
      { typ: 'logout+jwt' },
    );
    const userinfo = await server.deps.signer.sign({ iss: claims.iss, aud: claims.aud, sub: claims.sub }, {});
    for (const bad of [tampered, unsigned, 'not-a-jwt', logoutToken, userinfo]) {
      expectErrorPage(await endSession(agent, { id_token_hint: bad }), 'The id_token_hint is not an ID token issued by this server.');
    }
    const other = await createClient(server.deps);
    expectErrorPage(
      await endSession(agent, { id_token_hint: hint, client_id: other.application.uid }),
      'The client_id is not the client the id_token_hint was issued to.',
    );
    expect(await signedInStill(agent)).toBe(true);
  });

  it('without a hint the user confirms on a page (CSRF-protected), then goes to the registered URI', async () => {
    const agent = await signedIn(server.app, 'alice');
    const page = await endSession(agent, { client_id: client.application.uid, post_logout_redirect_uri: AFTER_LOGOUT, state: 's1' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Do you want to sign out?');
    const fields = hiddenFields(page.body);
    expect(fields).toMatchObject({ client_id: client.application.uid, post_logout_redirect_uri: AFTER_LOGOUT, state: 's1' });
    const forged = await agent.request({
      method: 'POST',
      url: '/oauth/end_session/confirm',
      headers: FORM,
      payload: form({ ...fields, _csrf: 'forged' }),
    });
    expect(forged.statusCode).toBe(403);
    expect(await signedInStill(agent)).toBe(true);
    const confirmed = await agent.post('/oauth/end_session/confirm', { ...fields, _csrf: csrfTokenIn(page.body)! });
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe(`${AFTER_LOGOUT}?state=s1`);
    expect(await signedInStill(agent)).toBe(false);
  });

  it("a hint for someone else's session asks first; with no session at all there is nothing to ask", async () => {
    const alice = await signedIn(server.app, 'alice');
    const aliceHint = await idTokenOf(alice);
    const bob = await signedIn(server.app, 'bob');
    const page = await endSession(bob, { id_token_hint: aliceHint, post_logout_redirect_uri: AFTER_LOGOUT });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Do you want to sign out?');
    expect(await signedInStill(bob)).toBe(true);
    const signedOut = await signedIn(server.app, 'alice');
    await signedOut.request({ method: 'GET', url: `/oauth/end_session?${form({ id_token_hint: aliceHint })}` });
    const again = await endSession(signedOut, { id_token_hint: aliceHint, post_logout_redirect_uri: AFTER_LOGOUT });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(AFTER_LOGOUT);
  });

  it("a valid hint of an application deleted since still logs its user out at once; its redirect URI can't be followed", async () => {
    const gone = await createClient(server.deps);
    await server.deps.stores.applicationAdmin.update(gone.application.id, { postLogoutRedirectUris: [AFTER_LOGOUT] });
    const agent = await signedIn(server.app, 'alice');
    const hint = (await codeFlow(server, agent, gone)).response.json().id_token as string;
    await server.deps.stores.applicationAdmin.delete(gone.application.id);
    expectErrorPage(
      await endSession(agent, { id_token_hint: hint, post_logout_redirect_uri: AFTER_LOGOUT }),
      'The application the id_token_hint was issued to no longer exists: no post_logout_redirect_uri of it can be followed.',
    );
    const response = await endSession(agent, { id_token_hint: hint });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login');
    expect(await signedInStill(agent)).toBe(false);
  });

  it('without a redirect URI the user lands on the login page with a notice', async () => {
    const agent = await signedIn(server.app, 'alice');
    const response = await endSession(agent, { id_token_hint: await idTokenOf(agent) });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login');
    expect((await agent.request({ method: 'GET', url: '/login' })).body).toContain('You have been signed out.');
  });
});
