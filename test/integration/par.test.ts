import type { LightMyRequestResponse } from 'fastify';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { cleanUpStaleRecords } from '../../src/oauth/cleanup/cleanup.js';
import { assertionParams, clientAssertion, clientKey, jwksOf, type ClientKey } from '../helpers/client-assertions.js';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { authorizeUrl, createClient, createUser, hiddenFields, locationParameters, signedIn, type UserAgent } from '../helpers/end-user.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { backend } from '../helpers/test-database.js';
import { basicAuth, buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';
import { discovered, insecureHttp, pkceCodeRequest } from '../helpers/oauth4webapi.js';

// Issue 36 item 1, RFC 9126: pushed authorization requests, black-box over HTTP. The tests are named after the FAPI 2.0
// conformance suite's modules where one exists (fapi2-security-profile-final-*). The happy flow is oauth4webapi's, as a
// FAPI client makes it: private_key_jwt, PAR with DPoP, the consent completed by a signed-in user agent, the code
// exchanged with a proof of the same key.

const CALLBACK = 'https://client.example.com/callback';
const OTHER_CALLBACK = 'https://client.example.com/other';
const VERIFIER = 'a'.repeat(43);
const http = insecureHttp;

describe(`pushed authorization requests (RFC 9126) on ${backend}`, () => {
  let server: TestServer & { baseUrl: string };
  let as: oauth.AuthorizationServer;
  let fapiClient: { uid: string; key: ClientKey };
  let secretClient: { uid: string; secret: string };
  let twoUris: { uid: string; secret: string };
  let parOnly: { uid: string; secret: string };
  let publicUid: string;
  let alice: UserAgent;

  beforeAll(async () => {
    server = await listeningTestServer({ grantFlows: ['authorization_code', 'refresh_token'] });
    const key = await clientKey('ES256');
    const keyed = await createClient(server.deps, { tokenEndpointAuthMethod: 'private_key_jwt', jwks: JSON.stringify(jwksOf(key)) });
    fapiClient = { uid: keyed.application.uid, key };
    const confidential = async (fields: Parameters<typeof createClient>[1] = {}) => {
      const made = await createClient(server.deps, fields);
      return { uid: made.application.uid, secret: made.plainSecret! };
    };
    secretClient = await confidential();
    twoUris = await confidential({ redirectUri: `${CALLBACK}\n${OTHER_CALLBACK}` });
    parOnly = await confidential({ requirePushedAuthorizationRequests: true });
    publicUid = (await createClient(server.deps, { confidential: false })).application.uid;
    await createUser(server.deps, 'alice');
    alice = await signedIn(server.app, 'alice');
    as = await discovered(server.baseUrl);
  });
  afterAll(() => server?.close());

  const codeRequest = (extra: Record<string, string> = {}) => ({
    response_type: 'code',
    redirect_uri: CALLBACK,
    scope: 'read',
    state: 'xyz',
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    ...extra,
  });

  const push = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'POST', url: '/oauth/par', headers: { ...FORM, ...headers }, payload: form(fields) });
  const pushBasic = (client: { uid: string; secret: string }, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    push(fields, { authorization: basicAuth(client.uid, client.secret), ...headers });
  const requestUriOf = (response: LightMyRequestResponse): string => {
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ request_uri: string }>().request_uri;
  };
  const authorize = (clientId: string, requestUri: string, extra: Record<string, string> = {}) =>
    alice.request({ method: 'GET', url: authorizeUrl({ client_id: clientId, request_uri: requestUri, ...extra }) });
  /** The consent page's Authorize form, posted as the browser would: the code's redirect. */
  const approve = async (page: LightMyRequestResponse) => {
    expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
    return alice.post('/oauth/authorize', hiddenFields(page.body));
  };
  const exchange = (client: { uid: string; secret: string }, code: string, headers: Record<string, string> = {}) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, authorization: basicAuth(client.uid, client.secret), ...headers },
      payload: form({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: VERIFIER }),
    });
  const parProof = (key: DpopKey) => dpopProof(key, { htu: `${server.baseUrl}/oauth/par` });
  const tokenProof = (key: DpopKey) => dpopProof(key, { htu: `${server.baseUrl}/oauth/token` });
  /** The error page (no redirect), saying `description`. */
  const expectErrorPage = (response: LightMyRequestResponse, description: string) => {
    expect(response.statusCode, response.body.slice(0, 300)).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain(description);
  };

  it('discovery lists the PAR endpoint (RFC 9126 section 5); request_uri_parameter_supported stays false (RFC 9101)', async () => {
    expect(as.pushed_authorization_request_endpoint).toBe(`${server.baseUrl}/oauth/par`);
    expect(as.require_pushed_authorization_requests).toBe(false);
    const openid = await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(openid.json()).not.toHaveProperty('request_uri_parameter_supported', true);
  });

  it('fapi2-security-profile-final-happy-flow: oauth4webapi pushes with private_key_jwt and DPoP, the user consents, the code gives a DPoP-bound token', async () => {
    const client: oauth.Client = { client_id: fapiClient.uid };
    const auth = oauth.PrivateKeyJwt({ key: fapiClient.key.privateKey, kid: fapiClient.key.kid });
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const verifier = oauth.generateRandomCodeVerifier();
    const parameters = await pkceCodeRequest({ verifier, redirectUri: CALLBACK, state: 'fapi' });
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(as, client, auth, parameters, { ...http, DPoP }),
    );
    expect(pushed.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    expect(pushed.expires_in).toBe(60);
    // Section 4: only client_id and request_uri count; a redirect_uri in the query is ignored.
    const page = await authorize(client.client_id, pushed.request_uri, { redirect_uri: 'https://evil.example/', scope: 'write' });
    // The consent page may be reloaded: the request_uri is consumed when the authorization completes.
    expect((await authorize(client.client_id, pushed.request_uri)).statusCode).toBe(200);
    const redirect = await approve(page);
    expect(redirect.statusCode).toBe(303);
    expect(String(redirect.headers.location)).toMatch(/^https:\/\/client\.example\.com\/callback\?/);
    const callback = oauth.validateAuthResponse(as, client, new URL(String(redirect.headers.location)), 'fapi');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callback, CALLBACK, verifier, { ...http, DPoP }),
    );
    expect(tokens).toMatchObject({ token_type: 'dpop', scope: 'read' });
  });

  it('fapi2-message-signing happy flow at PAR: a signed request object is pushed, its parameters are the request', async () => {
    const client: oauth.Client = { client_id: fapiClient.uid };
    const signing = { key: fapiClient.key.privateKey, kid: fapiClient.key.kid };
    const auth = oauth.PrivateKeyJwt(signing);
    const verifier = oauth.generateRandomCodeVerifier();
    const parameters = new URLSearchParams(await pkceCodeRequest({ verifier, redirectUri: CALLBACK, state: 'signed' }));
    const request = await oauth.issueRequestObject(as, client, parameters, signing);
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(as, client, auth, { request }, http),
    );
    // Alice consented to this client's read in the happy flow: the code comes at once.
    const redirect = await authorize(client.client_id, pushed.request_uri);
    expect(redirect.statusCode).toBe(302);
    const callback = oauth.validateAuthResponse(as, client, new URL(String(redirect.headers.location)), 'signed');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callback, CALLBACK, verifier, http),
    );
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'read' });
    // An object signed by another key is refused at PAR itself, as JSON (RFC 9126 section 2.3), nothing stored.
    const forged = await oauth.issueRequestObject(as, client, parameters, {
      key: (await clientKey('ES256', fapiClient.key.kid)).privateKey,
    });
    const refused = await oauth.pushedAuthorizationRequest(as, client, auth, { request: forged }, http);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_request_object' });
  });

  it('fapi2-security-profile-final-par-attempt-reuse-request_uri: a completed request_uri is refused on the error page, the consent form too', async () => {
    const requestUri = requestUriOf(await pushBasic(secretClient, codeRequest()));
    const page = await authorize(secretClient.uid, requestUri);
    const fields = hiddenFields(page.body);
    expect(fields).toMatchObject({ client_id: secretClient.uid, request_uri: requestUri });
    expect((await approve(page)).statusCode).toBe(303);
    expectErrorPage(await authorize(secretClient.uid, requestUri), 'used already');
    const again = await alice.post('/oauth/authorize', fields);
    expect(again.statusCode).toBe(400);
    expect(again.headers.location).toBeUndefined();
    expect(again.body).toContain('used already');
  });

  it('a denial completes the request too: its request_uri cannot be used afterwards', async () => {
    const requestUri = requestUriOf(await pushBasic(secretClient, codeRequest()));
    const page = await authorize(secretClient.uid, requestUri);
    const denied = await alice.post('/oauth/authorize', { ...hiddenFields(page.body), _method: 'delete' });
    expect(denied.statusCode).toBe(303);
    expect(locationParameters(denied).get('error')).toBe('access_denied');
    expect(locationParameters(denied).get('state')).toBe('xyz');
    expectErrorPage(await authorize(secretClient.uid, requestUri), 'used already');
  });

  it('PAR without redirect_uri: a client (not fapi2) with one registered URI may leave it out (RFC 6749 3.1.2.3), one with two may not', async () => {
    const { redirect_uri: _left, ...withoutRedirectUri } = codeRequest();
    const requestUri = requestUriOf(await pushBasic(secretClient, withoutRedirectUri));
    const redirect = await approve(await authorize(secretClient.uid, requestUri));
    expect(String(redirect.headers.location)).toMatch(/^https:\/\/client\.example\.com\/callback\?code=/);
    const refused = await pushBasic(twoUris, withoutRedirectUri);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('request_uri sent twice: the error page says so, never redirected', async () => {
    const requestUri = requestUriOf(await pushBasic(secretClient, codeRequest()));
    const twice = `/oauth/authorize?client_id=${secretClient.uid}&request_uri=${encodeURIComponent(requestUri)}&request_uri=x`;
    expectErrorPage(await alice.request({ method: 'GET', url: twice }), 'The parameter request_uri was sent more than once.');
  });

  it("request_uri of another client: the error page (its redirect_uri is not this client's to trust), and the owner can still use it", async () => {
    const requestUri = requestUriOf(await pushBasic(secretClient, codeRequest()));
    expectErrorPage(await authorize(twoUris.uid, requestUri), 'unknown, or was pushed by another client');
    expectErrorPage(
      await authorize(secretClient.uid, 'urn:ietf:params:oauth:request_uri:unknown'),
      'unknown, or was pushed by another client',
    );
    expect((await authorize(secretClient.uid, requestUri)).statusCode).toBe(200);
  });

  it('PAR with a request_uri parameter inside: invalid_request (RFC 9126 section 2.1)', async () => {
    const response = await pushBasic(secretClient, codeRequest({ request_uri: 'urn:ietf:params:oauth:request_uri:abc' }));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('request_uri') });
  });

  it('the rules of /oauth/authorize, answered as JSON 400 (section 2.3)', async () => {
    const badScope = await pushBasic(secretClient, codeRequest({ scope: 'nonsense' }));
    expect(badScope.json()).toMatchObject({ error: 'invalid_scope' });
    const badType = await pushBasic(secretClient, codeRequest({ response_type: 'id_token' }));
    expect(badType.json()).toMatchObject({ error: 'unsupported_response_type' });
    const foreignUri = await pushBasic(secretClient, codeRequest({ redirect_uri: 'https://evil.example/' }));
    expect(foreignUri.statusCode).toBe(400);
    expect(foreignUri.json()).toMatchObject({ error: 'invalid_request' });
    // A public client pushes by its client_id, and must send PKCE there as at /oauth/authorize.
    const noPkce = await push({ client_id: publicUid, response_type: 'code', redirect_uri: CALLBACK, scope: 'read' });
    expect(noPkce.json()).toMatchObject({ error: 'invalid_request', error_description: 'Code challenge is required.' });
    expect((await push({ client_id: publicUid, ...codeRequest() })).statusCode).toBe(201);
    // RFC 8707's resource may be repeated: both reach the rule (here the first, not registered), not a schema's refusal.
    const twoResources = await server.app.inject({
      method: 'POST',
      url: '/oauth/par',
      headers: { ...FORM, authorization: basicAuth(secretClient.uid, secretClient.secret) },
      payload: `${form(codeRequest())}&resource=${encodeURIComponent('https://a.example/')}&resource=${encodeURIComponent('https://b.example/')}`,
    });
    expect(twoResources.json()).toEqual({
      error: 'invalid_target',
      error_description: 'The resource https://a.example/ is not registered.',
    });
  });

  it('fapi2-security-profile-final-par-without-client-authentication: 401 invalid_client, nothing stored', async () => {
    const wrong = await pushBasic({ uid: secretClient.uid, secret: 'wrong' }, codeRequest());
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_client' });
    const none = await push(codeRequest());
    expect(none.statusCode).toBe(401);
    // Another client_id next to Basic credentials names two clients: refused as at the token endpoint.
    expect((await pushBasic(secretClient, { ...codeRequest(), client_id: twoUris.uid })).json()).toMatchObject({
      error: 'invalid_request',
    });
    // A client registered for private_key_jwt cannot push by its client_id alone.
    expect((await push({ client_id: fapiClient.uid, ...codeRequest() })).statusCode).toBe(401);
  });

  it("private_key_jwt at PAR: the assertion's aud may be the PAR endpoint's URL (RFC 9126 section 2)", async () => {
    const assertion = await clientAssertion(fapiClient.uid, fapiClient.key, server.baseUrl, { aud: `${server.baseUrl}/oauth/par` });
    const accepted = await push({ ...assertionParams(assertion), ...codeRequest() });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const elsewhere = await clientAssertion(fapiClient.uid, fapiClient.key, server.baseUrl, { aud: `${server.baseUrl}/oauth/revoke` });
    expect((await push({ ...assertionParams(elsewhere), ...codeRequest() })).statusCode).toBe(401);
  });

  it('fapi2-security-profile-final-par-plain-request-refused: a client that must use PAR sends a plain request; pushed, it is served', async () => {
    const plain = await alice.request({ method: 'GET', url: authorizeUrl({ client_id: parOnly.uid, ...codeRequest() }) });
    expect(plain.statusCode).toBe(302);
    expect(locationParameters(plain).get('error')).toBe('invalid_request');
    expect(locationParameters(plain).get('error_description')).toBe('Pushed authorization requests are required for this client.');
    const unverified = await alice.request({
      method: 'GET',
      url: authorizeUrl({ client_id: parOnly.uid, ...codeRequest({ redirect_uri: 'https://evil.example/' }) }),
    });
    expectErrorPage(unverified, 'redirect URI is malformed');
    const requestUri = requestUriOf(await pushBasic(parOnly, codeRequest()));
    expect((await approve(await authorize(parOnly.uid, requestUri))).statusCode).toBe(303);
  });

  it('fapi2-security-profile-final-dpop-bound-code-wrong-key: PAR with a DPoP proof binds the code; another key, or none, is refused', async () => {
    const key = await dpopKey();
    const other = await dpopKey();
    const requestUri = requestUriOf(await pushBasic(secretClient, codeRequest(), { dpop: await parProof(key) }));
    const code = locationParameters(await approve(await authorize(secretClient.uid, requestUri))).get('code')!;
    const wrongKey = await exchange(secretClient, code, { dpop: await tokenProof(other) });
    expect(wrongKey.statusCode).toBe(400);
    expect(wrongKey.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange(secretClient, code)).json()).toMatchObject({ error: 'invalid_dpop_proof' });
    const right = await exchange(secretClient, code, { dpop: await tokenProof(key) });
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json()).toMatchObject({ token_type: 'DPoP' });
  });

  it('a DPoP proof and a dpop_jkt of another key at PAR: invalid_dpop_proof (RFC 9449 section 10.1); a proof for another URL too', async () => {
    const key = await dpopKey();
    const other = await dpopKey();
    const mismatch = await pushBasic(secretClient, codeRequest({ dpop_jkt: other.jkt }), { dpop: await parProof(key) });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    const tokenUrl = await pushBasic(secretClient, codeRequest(), { dpop: await tokenProof(key) });
    expect(tokenUrl.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    expect((await pushBasic(secretClient, codeRequest({ dpop_jkt: key.jkt }), { dpop: await parProof(key) })).statusCode).toBe(201);
  });

  // The last two move the server's clock ahead of the real one, which client assertions and DPoP proofs are made with.
  // Their client has no token yet, so its consent is never skipped (skipAuthorization.whenPreviouslyAuthorized).
  it('expired request_uri: past expires_in the authorization request is refused; once opened, the consent has its own window', async () => {
    const stale = requestUriOf(await pushBasic(parOnly, codeRequest()));
    const opened = requestUriOf(await pushBasic(parOnly, codeRequest()));
    const page = await authorize(parOnly.uid, opened);
    server.clock.advance(61);
    expectErrorPage(await authorize(parOnly.uid, stale), 'has expired');
    expect((await approve(page)).statusCode).toBe(303);
  });

  it('tokens cleanup deletes pushed requests past their expiry and keeps the live ones', async () => {
    const stale = requestUriOf(await pushBasic(parOnly, codeRequest()));
    server.clock.advance(61);
    const live = requestUriOf(await pushBasic(parOnly, codeRequest()));
    const { deleted } = await cleanUpStaleRecords(server.deps, server.clock.now, { batchSize: 100 });
    expect(deleted.expired_pushed_requests).toBeGreaterThanOrEqual(1);
    expectErrorPage(await authorize(parOnly.uid, stale), 'unknown, or was pushed by another client');
    expect((await authorize(parOnly.uid, live)).statusCode).toBe(200);
  });
});

describe(`pushedAuthorizationRequests.required: every client must push (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { pushedAuthorizationRequests: { required: true, expiresIn: 30 } } });
  });
  afterAll(() => server?.close());

  it('discovery says so; a plain request of any client is refused, a pushed one is served (expires_in from the config)', async () => {
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.require_pushed_authorization_requests).toBe(true);
    const { application, plainSecret } = await createClient(server.deps);
    await createUser(server.deps, 'bob');
    const bob = await signedIn(server.app, 'bob');
    const request = { response_type: 'code', redirect_uri: CALLBACK, scope: 'read', state: 's' };
    const plain = await bob.request({ method: 'GET', url: authorizeUrl({ client_id: application.uid, ...request }) });
    expect(locationParameters(plain).get('error_description')).toBe('Pushed authorization requests are required for this client.');
    const pushed = await server.app.inject({
      method: 'POST',
      url: '/oauth/par',
      headers: { ...FORM, authorization: basicAuth(application.uid, plainSecret!) },
      payload: form(request),
    });
    expect(pushed.json()).toMatchObject({ expires_in: 30 });
    const page = await bob.request({
      method: 'GET',
      url: authorizeUrl({ client_id: application.uid, request_uri: pushed.json().request_uri }),
    });
    expect(page.statusCode).toBe(200);
  });
});
