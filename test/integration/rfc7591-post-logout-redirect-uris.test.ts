import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, csrfTokenIn, hiddenFields, signedIn, type UserAgent } from '../helpers/end-user.js';
import { bearer, registrationRequest } from '../helpers/oauth-requests.js';
import { CALLBACK, codeFlow, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, form, type TestServer } from '../helpers/test-server.js';

// OpenID Connect RP-Initiated Logout 1.0 section 3.1: post_logout_redirect_uris is client registration metadata. While
// OpenID Connect is on, RFC 7591 registration and RFC 7592 update take it (the admin's rules for post-logout URIs,
// plus the rules registration holds redirect_uris to), answer it and store it, so a self-registered relying party can
// send the user back after end_session; while OpenID Connect is off it is ignored, as the back-channel logout fields are.

const JSON_HEADERS = { 'content-type': 'application/json' };
const BYE = 'https://rp.example/bye';
const REGISTRATION = { registration: { policy: 'open' as const, perAddressPerMinute: 0 } };

type Json = Record<string, unknown> & { client_id: string; registration_access_token: string };

describe(`RFC 7591/7592 post_logout_redirect_uris (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openIdServer({ config: REGISTRATION });
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  const register = (metadata: object) => registrationRequest(server.app, { redirect_uris: [CALLBACK], ...metadata });
  const registered = async (metadata: object): Promise<Json> => {
    const response = await register(metadata);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const manage = (method: 'GET' | 'PUT', client: Json, token: string, payload?: object) =>
    server.app.inject({
      method,
      url: `/oauth/register/${client.client_id}`,
      headers: { ...(payload && JSON_HEADERS), ...bearer(token) },
      ...(payload && { payload }),
    });
  const storedUris = async (clientId: string) => (await server.deps.stores.applications.findByUid(clientId))?.postLogoutRedirectUris;
  const refusal = async (metadata: object) => {
    const response = await register(metadata);
    expect(response.statusCode, response.body).toBe(400);
    return response.json() as { error: string; error_description: string };
  };

  it('registered, stored and answered (RFC 7591 section 3.2.1); a URI listed twice is kept once; absent when none', async () => {
    const client = await registered({ post_logout_redirect_uris: [BYE, 'https://rp.example/bye?x=1', BYE] });
    expect(client.post_logout_redirect_uris).toEqual([BYE, 'https://rp.example/bye?x=1']);
    expect(await storedUris(client.client_id)).toEqual([BYE, 'https://rp.example/bye?x=1']);
    const without = await registered({});
    expect(without).not.toHaveProperty('post_logout_redirect_uris');
    expect(await storedUris(without.client_id)).toEqual([]);
    expect(await registered({ post_logout_redirect_uris: [] })).not.toHaveProperty('post_logout_redirect_uris');
  });

  it('RFC 7592: read back, replaced by an update, dropped by an update that leaves it out', async () => {
    const client = await registered({ post_logout_redirect_uris: [BYE] });
    const read = await manage('GET', client, client.registration_access_token);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().post_logout_redirect_uris).toEqual([BYE]);

    const other = 'https://rp.example/signed-out';
    const updated = await manage('PUT', client, read.json().registration_access_token, {
      client_id: client.client_id,
      redirect_uris: [CALLBACK],
      post_logout_redirect_uris: [other],
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().post_logout_redirect_uris).toEqual([other]);
    expect(await storedUris(client.client_id)).toEqual([other]);
    const reread = await manage('GET', client, updated.json().registration_access_token);
    expect(reread.json().post_logout_redirect_uris).toEqual([other]);

    // A bad value in an update is refused with the same error, and nothing changes.
    const refused = await manage('PUT', client, reread.json().registration_access_token, {
      client_id: client.client_id,
      redirect_uris: [CALLBACK],
      post_logout_redirect_uris: ['https://rp.example/bye#top'],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'post_logout_redirect_uris: https://rp.example/bye#top: Post-logout redirect URI cannot contain a fragment.',
    });
    expect(await storedUris(client.client_id)).toEqual([other]);

    // Section 2.2: the update replaces all of the metadata; what it leaves out is gone.
    const cleared = await manage('PUT', client, reread.json().registration_access_token, {
      client_id: client.client_id,
      redirect_uris: [CALLBACK],
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).not.toHaveProperty('post_logout_redirect_uris');
    expect(await storedUris(client.client_id)).toEqual([]);
  });

  it('invalid_client_metadata names the field, the URI and its problem', async () => {
    const cases: Array<[unknown, string]> = [
      [['http://rp.example/bye'], 'post_logout_redirect_uris: http://rp.example/bye: http is allowed on a loopback host only.'],
      [
        ['https://rp.example/bye#top'],
        'post_logout_redirect_uris: https://rp.example/bye#top: Post-logout redirect URI cannot contain a fragment.',
      ],
      [BYE, 'post_logout_redirect_uris must be an array of strings.'],
      [[BYE, 42], 'post_logout_redirect_uris must be an array of strings.'],
      [{ uri: BYE }, 'post_logout_redirect_uris must be an array of strings.'],
      [['/bye'], 'post_logout_redirect_uris: /bye: Post-logout redirect URI must be an absolute URI.'],
      [['//rp.example/bye'], 'post_logout_redirect_uris: //rp.example/bye: Post-logout redirect URI must specify a scheme.'],
      [
        ['urn:ietf:wg:oauth:2.0:oob'],
        'post_logout_redirect_uris: urn:ietf:wg:oauth:2.0:oob: Post-logout redirect URI cannot be an out-of-band URI.',
      ],
      [['javascript:alert(1)'], 'post_logout_redirect_uris: javascript:alert(1): Post-logout redirect URI is forbidden by the server.'],
      [
        ['https://rp.example@evil.example/bye'],
        'post_logout_redirect_uris: https://rp.example@evil.example/bye: Post-logout redirect URI must not hold a user name or password before the host (user@host): it makes the URI look like it goes to another host.',
      ],
      [
        ['https://127.1/bye'],
        'post_logout_redirect_uris: https://127.1/bye: Post-logout redirect URI host 127.1 is an IPv4 address not written in plain dotted-decimal form (browsers read it as 127.0.0.1): write it as 127.0.0.1.',
      ],
      // A web client (its redirect URIs are https) gets https post-logout URIs only, as for its redirect URIs.
      [
        ['http://127.0.0.1:8080/bye'],
        'post_logout_redirect_uris: http://127.0.0.1:8080/bye: a web client may register https post-logout redirect URIs only.',
      ],
      [
        ['com.example.app:/bye'],
        'post_logout_redirect_uris: com.example.app:/bye: a web client may register https post-logout redirect URIs only.',
      ],
      [[`https://rp.example/${'a'.repeat(2000)}`], 'post_logout_redirect_uris: a URI is longer than 2000 characters.'],
      [Array.from({ length: 21 }, (_, index) => `${BYE}/${index}`), 'post_logout_redirect_uris may hold at most 20 values.'],
    ];
    for (const [value, description] of cases) {
      expect(await refusal({ post_logout_redirect_uris: value }), String(value)).toEqual({
        error: 'invalid_client_metadata',
        error_description: description,
      });
    }
  });

  it('the rules of redirect_uris: a URI registration takes or refuses as a redirect URI it takes or refuses here', async () => {
    const uris = [
      'https://rp.example/bye',
      'https://10.0.0.8/bye',
      'http://127.0.0.1:8080/bye',
      'http://[::1]/bye',
      'http://localhost:8080/bye',
      'http://10.0.0.8/bye',
      'com.example.app:/bye',
      'myapp:/bye',
      'ftp://rp.example/bye',
      'https://*.rp.example/bye',
    ];
    for (const applicationType of ['web', 'native'])
      for (const uri of uris) {
        const asRedirect = await register({ application_type: applicationType, redirect_uris: [uri] });
        const asPostLogout = await register({
          application_type: applicationType,
          redirect_uris: applicationType === 'web' ? [CALLBACK] : ['http://127.0.0.1/cb'],
          post_logout_redirect_uris: [uri],
        });
        expect(asPostLogout.statusCode, `${applicationType} ${uri}: ${asPostLogout.body}`).toBe(asRedirect.statusCode);
        if (asPostLogout.statusCode === 400) expect(asPostLogout.json().error).toBe('invalid_client_metadata');
        else expect(asPostLogout.json().post_logout_redirect_uris).toEqual([uri]);
      }
    // A client left without application_type is native when its redirect URIs say so, and then may use them here too.
    const native = await registered({ redirect_uris: ['http://127.0.0.1/cb'], post_logout_redirect_uris: ['http://127.0.0.1:9/bye'] });
    expect(native).toMatchObject({ application_type: 'native', post_logout_redirect_uris: ['http://127.0.0.1:9/bye'] });
  });

  it('end to end: the registered client signs a user in, then end_session sends the user back to its URI with state', async () => {
    const client = await registered({ scope: 'openid', post_logout_redirect_uris: [BYE] });
    const application = (await server.deps.stores.applications.findByUid(client.client_id))!;
    const agent: UserAgent = await signedIn(server.app, 'alice');
    const tokens = await codeFlow(server, agent, { application, plainSecret: client.client_secret as string });
    expect(tokens.response.statusCode, tokens.response.body).toBe(200);
    const idToken = tokens.response.json().id_token as string;
    expect(idToken).toEqual(expect.any(String));

    const signedInStill = async () => (await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).statusCode === 200;
    expect(await signedInStill()).toBe(true);
    const response = await agent.request({
      method: 'GET',
      url: `/oauth/end_session?${form({ id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'st-1' })}`,
    });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
    expect(response.headers.location).toBe(`${BYE}?state=st-1`);
    expect(await signedInStill()).toBe(false);
  });

  it('without an id_token_hint its URI is not followed (Logout 1.0 section 3): anyone could register one and redirect through it', async () => {
    const client = await registered({ scope: 'openid', post_logout_redirect_uris: [BYE] });
    const parameters = { client_id: client.client_id as string, post_logout_redirect_uri: BYE, state: 'st-2' };
    const noSession = await server.app.inject({ method: 'GET', url: `/oauth/end_session?${form(parameters)}` });
    expect([noSession.statusCode, noSession.headers.location]).toEqual([303, '/login']);
    const agent = await signedIn(server.app, 'alice');
    const page = await agent.request({ method: 'GET', url: `/oauth/end_session?${form(parameters)}` });
    expect(page.statusCode).toBe(200);
    const confirmed = await agent.post('/oauth/end_session/confirm', { ...hiddenFields(page.body), _csrf: csrfTokenIn(page.body)! });
    expect([confirmed.statusCode, confirmed.headers.location]).toEqual([303, '/login']);
  });
});

describe(`post_logout_redirect_uris with OpenID Connect off (${backend})`, () => {
  it('is ignored as the back-channel logout metadata is (RFC 7591 section 2): not refused, not stored, not answered', async () => {
    const server = await buildTestServer({ config: REGISTRATION });
    try {
      for (const value of [[BYE], ['http://10.0.0.1/#x'], 'not a list']) {
        const response = await server.app.inject({
          method: 'POST',
          url: '/oauth/register',
          headers: JSON_HEADERS,
          payload: { redirect_uris: [CALLBACK], post_logout_redirect_uris: value },
        });
        expect(response.statusCode, response.body).toBe(201);
        expect(response.json()).not.toHaveProperty('post_logout_redirect_uris');
        expect((await server.deps.stores.applications.findByUid(response.json().client_id))?.postLogoutRedirectUris).toEqual([]);
        const read = await server.app.inject({
          method: 'GET',
          url: `/oauth/register/${response.json().client_id}`,
          headers: bearer(response.json().registration_access_token),
        });
        expect(read.json()).not.toHaveProperty('post_logout_redirect_uris');
      }
    } finally {
      await server.close();
    }
  });
});
