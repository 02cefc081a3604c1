import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { CompactSign, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAuthorizationParameters } from '../../src/oauth/authorization/authorization-parameters.js';
import { validateAuthorizationRequest } from '../../src/oauth/authorization/authorization-request.js';
import {
  assertionParams,
  clientAssertion,
  clientKey,
  jwksOf,
  privateKeyJwtClient,
  unsecuredAssertion,
  type ClientKey,
} from '../helpers/client-assertions.js';
import { authorizeUrl, createUser, locationParameters, signedIn, type UserAgent } from '../helpers/end-user.js';
import { authorize } from '../helpers/openid.js';
import { pkceCodeRequest } from '../helpers/oauth4webapi.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// Signed request objects (RFC 9101, JAR; issue 36 item 2) at the authorization endpoint, by value. The tests are named
// after the FAPI 2.0 Message Signing conformance modules where one exists; oauth4webapi signs the happy flow's object
// as a FAPI client does, jose the broken ones.

const CALLBACK = 'https://app.example.com/callback';
const http = { [oauth.allowInsecureRequests]: true };

describe(`signed request objects (RFC 9101) on ${backend}`, () => {
  let server: TestServer;
  let issuer: string;
  let as: oauth.AuthorizationServer;
  let key: ClientKey;
  let clientId: string;
  let agent: UserAgent;

  beforeAll(async () => {
    server = await buildTestServer();
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    issuer = server.config.baseUrl.replace(/\/+$/, '');
    const metadata = (await (await fetch(`${address}/.well-known/oauth-authorization-server`)).json()) as oauth.AuthorizationServer;
    as = { ...metadata, token_endpoint: `${address}/oauth/token` };
    key = await clientKey('ES256');
    clientId = (await privateKeyJwtClient(server.deps, { jwks: jwksOf(key) })).uid;
    await createUser(server.deps, 'alice', 'correct horse battery staple');
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  /** A request object signed with the client's key (or `signingKey`), these claims over the defaults. */
  async function requestObject(claims: Record<string, unknown> = {}, signingKey: ClientKey = key): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const defaults = {
      iss: clientId,
      aud: issuer,
      exp: now + 300,
      nbf: now,
      client_id: clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
    };
    const payload = Object.fromEntries(Object.entries({ ...defaults, ...claims }).filter(([, value]) => value !== undefined));
    return new SignJWT(payload)
      .setProtectedHeader({ alg: signingKey.alg, kid: signingKey.kid, typ: 'oauth-authz-req+jwt' })
      .sign(signingKey.privateKey);
  }
  const withRequest = (request: string, extra: Record<string, string> = {}) =>
    agent.request({ method: 'GET', url: authorizeUrl({ client_id: clientId, request, ...extra }) });

  function expectRefused(response: LightMyRequestResponse, description: string) {
    expect(response.statusCode).toBe(400);
    // Shown on our page, never redirected: the redirect_uri inside an object that failed cannot be trusted.
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain(description);
  }

  it('discovery: request objects by value, and the algorithms they may be signed with', () => {
    expect(as.request_parameter_supported).toBe(true);
    expect(as.request_object_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519']);
  });

  it('fapi2-message-signing happy flow: oauth4webapi signs the request object; its claims are the request, the code is exchanged', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const client: oauth.Client = { client_id: clientId };
    const parameters = new URLSearchParams(await pkceCodeRequest({ verifier, redirectUri: CALLBACK, state }));
    const request = await oauth.issueRequestObject(as, client, parameters, { key: key.privateKey, kid: key.kid });
    const redirect = await authorize(agent, { client_id: clientId, request });
    expect(redirect.statusCode).toBe(303);
    const callback = oauth.validateAuthResponse(as, client, new URL(String(redirect.headers.location)), state);
    const auth = oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.kid });
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callback, CALLBACK, verifier, http),
    );
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'read' });
  });

  it('oauth4webapi signs with an Ed25519 key as alg Ed25519 (RFC 9864): the request object is taken, by a key labelled EdDSA too', async () => {
    const edKey = await clientKey('Ed25519');
    const edClient = (await privateKeyJwtClient(server.deps, { jwks: { keys: [{ ...edKey.publicJwk, alg: 'EdDSA' }] } })).uid;
    const parameters = new URLSearchParams({ response_type: 'code', redirect_uri: CALLBACK, scope: 'read', state: 'ed' });
    const request = await oauth.issueRequestObject(as, { client_id: edClient }, parameters, { key: edKey.privateKey, kid: edKey.kid });
    expect(JSON.parse(Buffer.from(request.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'Ed25519' });
    const redirect = await authorize(agent, { client_id: edClient, request });
    expect(redirect.statusCode).toBe(303);
    expect(new URL(String(redirect.headers.location)).searchParams.get('state')).toBe('ed');
  });

  it('only the request object counts (RFC 9101 6.3): state and redirect_uri beside it are ignored', async () => {
    const response = await withRequest(await requestObject({ state: 'signed', scope: 'read' }), {
      state: 'unsigned',
      redirect_uri: 'https://evil.example/callback',
    });
    expect(response.statusCode).toBe(302);
    expect(String(response.headers.location).startsWith(`${CALLBACK}?`)).toBe(true);
    expect(locationParameters(response).get('state')).toBe('signed');
  });

  it('fapi2-message-signing-ensure-unsigned-request-object-fails', async () => {
    const claims = { iss: clientId, aud: issuer, exp: Math.floor(Date.now() / 1000) + 300, client_id: clientId, response_type: 'code' };
    expectRefused(
      await withRequest(unsecuredAssertion(claims)),
      'The request object must be signed with one of RS256, PS256, ES256, EdDSA, Ed25519.',
    );
    for (const garbage of ['garbage', 'abc.def.ghi']) expectRefused(await withRequest(garbage), 'The request object is not a signed JWT.');
  });

  it('fapi2-message-signing-ensure-request-object-without-exp-fails', async () => {
    expectRefused(await withRequest(await requestObject({ exp: undefined })), 'missing required &quot;exp&quot; claim');
  });

  it('fapi2-message-signing-ensure-expired-request-object-fails', async () => {
    const past = Math.floor(Date.now() / 1000) - 600;
    expectRefused(await withRequest(await requestObject({ exp: past, nbf: past - 60 })), '&quot;exp&quot; claim timestamp check failed');
  });

  it('fapi2-message-signing-ensure-request-object-with-long-exp-fails: exp more than 60 minutes ahead', async () => {
    const far = Math.floor(Date.now() / 1000) + 2 * 3600;
    expectRefused(await withRequest(await requestObject({ exp: far })), 'exp is more than 60 minutes ahead.');
  });

  it('fapi2-message-signing-ensure-request-object-with-nbf-too-far-in-the-past-fails', async () => {
    const old = Math.floor(Date.now() / 1000) - 2 * 3600;
    expectRefused(await withRequest(await requestObject({ nbf: old })), 'nbf is more than 60 minutes in the past.');
  });

  it('fapi2-message-signing: exp more than 60 minutes after nbf fails, though each is within 60 minutes of now', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectRefused(
      await withRequest(await requestObject({ nbf: now - 59 * 60, exp: now + 59 * 60 })),
      'exp is more than 60 minutes after its nbf.',
    );
  });

  it('a claim of the wrong JSON type is named as the request object’s, not as a parameter sent twice', async () => {
    expectRefused(await withRequest(await requestObject({ state: { a: 1 } })), 'The request object&#39;s state claim must be a string.');
    expectRefused(await withRequest(await requestObject({ scope: ['read'] })), 'The request object&#39;s scope claim must be a string.');
    expectRefused(
      await withRequest(await requestObject({ resource: ['https://api.example', 5] })),
      'The request object&#39;s resource claim must be a string or an array of strings.',
    );
  });

  it('fapi2-message-signing-ensure-request-object-with-bad-aud-fails', async () => {
    expectRefused(await withRequest(await requestObject({ aud: 'https://other.example' })), 'unexpected &quot;aud&quot; claim value');
  });

  it('fapi2-message-signing-ensure-request-object-signature-algorithm-is-not-none, and the wrong key fails', async () => {
    const stranger = await clientKey('ES256', key.kid);
    expectRefused(await withRequest(await requestObject({}, stranger)), 'its signature does not verify with the client’s keys');
  });

  it('a request object of another client, or from another issuer, fails', async () => {
    expectRefused(await withRequest(await requestObject({ client_id: randomUUID() })), 'The request object is for another client_id.');
    expectRefused(await withRequest(await requestObject({ iss: 'someone-else' })), 'unexpected &quot;iss&quot; claim value');
  });

  it('request and request_uri together are invalid_request (Core 6, RFC 9101 section 5), shown; a pushed request_uri beside it is not opened', async () => {
    const description = 'The request and request_uri parameters must not be used together.';
    const request = await requestObject();
    expectRefused(await withRequest(request, { request_uri: 'urn:x' }), description);
    // The page shows the description; the code and where it goes are the validation's.
    const validation = await validateAuthorizationRequest(
      server.deps,
      readAuthorizationParameters({ client_id: clientId, request, request_uri: 'urn:x' }),
    );
    expect(validation).toMatchObject({ ok: false, rule: 'request_or_request_uri', error: { code: 'invalid_request' }, redirect: null });
    const pushed = await server.app.inject({
      method: 'POST',
      url: '/oauth/par',
      headers: FORM,
      payload: form({
        ...assertionParams(await clientAssertion(clientId, key, issuer)),
        client_id: clientId,
        response_type: 'code',
        redirect_uri: CALLBACK,
      }),
    });
    expect(pushed.statusCode, pushed.body).toBe(201);
    const requestUri = pushed.json<{ request_uri: string }>().request_uri;
    expectRefused(await withRequest(request, { request_uri: requestUri }), description);
    // Refused before the pushed request was looked at: it is still there for a request that names it alone.
    const alone = await agent.request({ method: 'GET', url: authorizeUrl({ client_id: clientId, request_uri: requestUri }) });
    expect(alone.statusCode).toBeOneOf([200, 302]);
    if (alone.statusCode === 302) expect(locationParameters(alone).get('code')).toBeTruthy();
  });

  it('a request object nested thousands deep fails as nested too deeply: carrying its claims on as text overflowed the stack (a 500)', async () => {
    // Made by hand: jose's SignJWT would itself overflow on the payload (JSON.stringify).
    const now = Math.floor(Date.now() / 1000);
    const head = JSON.stringify({ iss: clientId, aud: issuer, exp: now + 300, nbf: now, client_id: clientId, response_type: 'code' });
    const payload = `${head.slice(0, -1)},"claims":${'{"a":'.repeat(5000)}null${'}'.repeat(5000)}}`;
    const deep = await new CompactSign(new TextEncoder().encode(payload))
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' })
      .sign(key.privateKey);
    expectRefused(await withRequest(deep), 'The request object is nested too deeply (at most 32 levels of objects and arrays).');
  });

  it('a request object inside a request object, or naming a request_uri, fails', async () => {
    expectRefused(
      await withRequest(await requestObject({ request_uri: 'urn:x' })),
      'A request object must not contain request or request_uri.',
    );
  });
});
