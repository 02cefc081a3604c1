import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { decodeProtectedHeader, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionParams, clientAssertion, clientKey, jwksOf, type ClientKey } from '../helpers/client-assertions.js';
import { authorizeUrl, createClient, createUser, hiddenFields, PASSWORD, signedIn, type UserAgent } from '../helpers/end-user.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';
import { discovered, insecureHttp, pkceCodeRequest } from '../helpers/oauth4webapi.js';

// Issue 36 item 5: the fapi2 profile per client (FAPI 2.0 Security Profile, final, section 5), black-box over HTTP,
// with items 2 and 3's per-client require_signed_request_object and authorization_signed_response_alg. Tests are
// named after the FAPI 2.0 conformance suite's modules (fapi2-security-profile-final-*) where one exists. The client
// is oauth4webapi's, as a FAPI client makes it: private_key_jwt (aud the issuer), PAR, PKCE S256 and DPoP.

const CALLBACK = 'https://client.example.com/callback';
const http = insecureHttp;

describe(`the fapi2 profile (FAPI 2.0 Security Profile) on ${backend}`, () => {
  let server: TestServer & { baseUrl: string };
  let as: oauth.AuthorizationServer;
  let key: ClientKey;
  let client: oauth.Client;
  let auth: oauth.ClientAuth;
  let alice: UserAgent;

  beforeAll(async () => {
    server = await listeningTestServer(
      {
        // implicit and password enabled, so that it is the profile that refuses them to its client.
        grantFlows: ['authorization_code', 'implicit', 'refresh_token', 'password'],
        // JARM signs with the OpenID Connect keys, which need a key-encryption key.
        openid: { enabled: true },
        registration: { policy: 'open', perAddressPerMinute: 0 },
        // The most the config allows, more than FAPI 2.0 lets a fapi2 client's request_uri live.
        pushedAuthorizationRequests: { expiresIn: 600 },
      },
      { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } },
    );
    key = await clientKey('ES256');
    const made = await createClient(server.deps, {
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: JSON.stringify(jwksOf(key)),
      profile: 'fapi2',
    });
    client = { client_id: made.application.uid };
    auth = oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.kid });
    await createUser(server.deps, 'alice');
    alice = await signedIn(server.app, 'alice');
    as = await discovered(server.baseUrl);
  });
  afterAll(() => server?.close());

  const codeRequest = async (verifier: string, extra: Record<string, string> = {}) => ({
    ...(await pkceCodeRequest({ verifier, redirectUri: CALLBACK, state: 'fapi' })),
    ...extra,
  });
  const push = async (parameters: Record<string, string>, DPoP?: oauth.DPoPHandle) =>
    oauth.pushedAuthorizationRequest(as, client, auth, parameters, { ...http, ...(DPoP && { DPoP }) });
  const authorize = (requestUri: string) =>
    alice.request({ method: 'GET', url: authorizeUrl({ client_id: client.client_id, request_uri: requestUri }) });
  /** Through consent (once) to the callback's URL. */
  const callbackOf = async (page: LightMyRequestResponse): Promise<URL> => {
    const redirect = page.statusCode === 200 ? await alice.post('/oauth/authorize', hiddenFields(page.body)) : page;
    expect(redirect.statusCode, redirect.body.slice(0, 300)).toBeOneOf([302, 303]);
    return new URL(String(redirect.headers.location));
  };
  /** PAR with DPoP, consent, and the code: what the token request needs. */
  const codeFor = async (DPoP: oauth.DPoPHandle | undefined, extra: Record<string, string> = {}) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const pushed = await oauth.processPushedAuthorizationResponse(as, client, await push(await codeRequest(verifier, extra), DPoP));
    return { verifier, callback: await callbackOf(await authorize(pushed.request_uri)) };
  };
  const exchange = async (DPoP: oauth.DPoPHandle | undefined, callback: URLSearchParams, verifier: string) =>
    oauth.authorizationCodeGrantRequest(as, client, auth, callback, CALLBACK, verifier, { ...http, ...(DPoP && { DPoP }) });
  const errorOf = async (response: Response) => ({ status: response.status, ...((await response.json()) as object) });

  it('fapi2-security-profile-final-happy-flow: PAR with DPoP, the code exchanged with DPoP, a DPoP-bound token introspected active', async () => {
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const { verifier, callback } = await codeFor(DPoP);
    const params = oauth.validateAuthResponse(as, client, callback, 'fapi');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange(DPoP, params, verifier));
    expect(tokens).toMatchObject({ token_type: 'dpop', scope: 'read' });
    const introspected = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, http),
    );
    expect(introspected).toMatchObject({ active: true, client_id: client.client_id });
    expect(introspected.cnf).toHaveProperty('jkt');
  });

  it('fapi2-security-profile-final-ensure-par-required: a plain authorization request is redirected with invalid_request naming FAPI 2.0', async () => {
    const plain = await alice.request({
      method: 'GET',
      url: authorizeUrl({ client_id: client.client_id, ...(await codeRequest(oauth.generateRandomCodeVerifier())) }),
    });
    expect(plain.statusCode).toBe(302);
    const location = new URL(String(plain.headers.location));
    expect(location.origin + location.pathname).toBe(CALLBACK);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe(
      'FAPI 2.0: pushed authorization requests are required for this client (profile fapi2).',
    );
  });

  it('fapi2-security-profile-final-ensure-pkce-required and plain refused: PAR without code_challenge, or with plain, is invalid_request', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const { code_challenge: _challenge, code_challenge_method: _method, ...withoutPkce } = await codeRequest(verifier);
    const missing = await errorOf(await push(withoutPkce));
    const plain = await errorOf(await push({ ...withoutPkce, code_challenge: verifier, code_challenge_method: 'plain' }));
    for (const refused of [missing, plain]) {
      expect(refused).toMatchObject({
        status: 400,
        error: 'invalid_request',
        error_description: 'FAPI 2.0: PKCE with code_challenge_method S256 is required for this client (profile fapi2).',
      });
    }
  });

  it('fapi2-security-profile-final-par-without-redirect-uri: PAR of a fapi2 client without redirect_uri is invalid_request (5.3.2.2)', async () => {
    const { redirect_uri: _left, ...withoutRedirectUri } = await codeRequest(oauth.generateRandomCodeVerifier());
    expect(await errorOf(await push(withoutRedirectUri))).toEqual({
      status: 400,
      error: 'invalid_request',
      error_description: 'FAPI 2.0: redirect_uri is required in a pushed authorization request of this client (profile fapi2).',
    });
  });

  it('a fapi2 client’s request_uri expires in less than 600 s (5.3.2.2), though pushedAuthorizationRequests.expiresIn is 600', async () => {
    const pushed = await push(await codeRequest(oauth.generateRandomCodeVerifier()));
    expect(((await pushed.json()) as { expires_in: number }).expires_in).toBe(599);
  });

  it('fapi2-message-signing-ensure-request-object-without-nbf-fails: a fapi2 client’s request object must have nbf', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { ...(await codeRequest(oauth.generateRandomCodeVerifier())), client_id: client.client_id };
    const signed = (extra: Record<string, number>) =>
      new SignJWT({ ...claims, iss: client.client_id, aud: as.issuer, exp: now + 300, ...extra })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' })
        .sign(key.privateKey);
    expect(await errorOf(await push({ request: await signed({}) }))).toEqual({
      status: 400,
      error: 'invalid_request_object',
      error_description: 'The request object must have an nbf claim (FAPI 2.0, profile fapi2).',
    });
    expect((await push({ request: await signed({ nbf: now }) })).status).toBe(201);
  });

  it('fapi2-security-profile-final-ensure-client-assertion-with-token-endpoint-aud-fails: only the issuer, as a string, is the aud', async () => {
    const tokenAud = await clientAssertion(client.client_id, key, server.baseUrl, { aud: `${server.baseUrl}/oauth/token` });
    const parAud = await clientAssertion(client.client_id, key, server.baseUrl, { aud: `${server.baseUrl}/oauth/par` });
    const inArray = await clientAssertion(client.client_id, key, server.baseUrl, { aud: [server.baseUrl] });
    for (const assertion of [tokenAud, parAud, inArray]) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/par',
        headers: FORM,
        payload: form({ ...assertionParams(assertion), client_id: client.client_id, ...(await codeRequest('x'.repeat(43))) }),
      });
      expect(response.statusCode).toBe(401);
      // Named, as the profile's other refusals are: not "unknown client".
      expect(response.json()).toEqual({
        error: 'invalid_client',
        error_description: `FAPI 2.0: the client assertion's aud must be the issuer, ${server.baseUrl}, as a string (profile fapi2).`,
      });
    }
    // The issuer as aud: the same request is accepted.
    const issuerAud = await clientAssertion(client.client_id, key, server.baseUrl);
    const accepted = await server.app.inject({
      method: 'POST',
      url: '/oauth/par',
      headers: FORM,
      payload: form({ ...assertionParams(issuerAud), client_id: client.client_id, ...(await codeRequest('x'.repeat(43))) }),
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
  });

  it('fapi2-security-profile-final-ensure-token-request-without-dpop-fails: no proof, no token', async () => {
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const { verifier, callback } = await codeFor(DPoP);
    const params = oauth.validateAuthResponse(as, client, callback, 'fapi');
    // A code bound to the PAR's key (dpop_jkt) or pushed without DPoP (bound to nothing): either way the profile's rule.
    const fapiRefusal = {
      status: 400,
      error: 'invalid_dpop_proof',
      error_description: 'FAPI 2.0: this client must send a DPoP proof: its access tokens are sender-constrained (profile fapi2).',
    };
    expect(await errorOf(await exchange(undefined, params, verifier))).toMatchObject(fapiRefusal);
    const unbound = await codeFor(undefined);
    const refused = await exchange(undefined, oauth.validateAuthResponse(as, client, unbound.callback, 'fapi'), unbound.verifier);
    expect(await errorOf(refused)).toMatchObject(fapiRefusal);
  });

  it('fapi2-security-profile-final-refresh-token: refresh with the bound key works; without a proof it fails', async () => {
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const { verifier, callback } = await codeFor(DPoP);
    const params = oauth.validateAuthResponse(as, client, callback, 'fapi');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange(DPoP, params, verifier));
    expect(tokens.refresh_token).toBeDefined();
    const withoutProof = await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, http);
    expect(await errorOf(withoutProof)).toMatchObject({
      status: 400,
      error: 'invalid_dpop_proof',
      error_description: 'FAPI 2.0: this client must send a DPoP proof: its access tokens are sender-constrained (profile fapi2).',
    });
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, { ...http, DPoP }),
    );
    expect(refreshed.token_type).toBe('dpop');
  });

  it('fapi2-security-profile-final-ensure-authorization-code-lifetime: a code lives 60 s (authorizationCodeExpiresIn is 600)', async () => {
    expect(server.deps.config.authorizationCodeExpiresIn).toBeGreaterThan(60);
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const fresh = await codeFor(DPoP);
    const stale = await codeFor(DPoP);
    const early = oauth.validateAuthResponse(as, client, fresh.callback, 'fapi');
    expect((await exchange(DPoP, early, fresh.verifier)).status).toBe(200);
    server.clock.advance(61);
    const late = oauth.validateAuthResponse(as, client, stale.callback, 'fapi');
    // The assertion and the proof are made with the real clock, which the server's is now 61 s ahead of: still valid.
    expect(await errorOf(await exchange(DPoP, late, stale.verifier))).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('fapi2-security-profile-final-ensure-response-type-token-fails, and the password grant is refused at the token endpoint', async () => {
    const implicit = await errorOf(await push({ ...(await codeRequest('y'.repeat(43))), response_type: 'token' }));
    expect(implicit).toMatchObject({ status: 400, error: 'unauthorized_client' });
    expect(implicit).toHaveProperty('error_description', expect.stringMatching(/^FAPI 2\.0: /));
    const password = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: form({
        ...assertionParams(await clientAssertion(client.client_id, key, server.baseUrl)),
        grant_type: 'password',
        username: 'alice',
        password: PASSWORD,
        scope: 'read',
      }),
    });
    expect({ status: password.statusCode, ...password.json<object>() }).toMatchObject({
      status: 400,
      error: 'unauthorized_client',
      error_description: 'FAPI 2.0: the password grant is not allowed for this client (profile fapi2).',
    });
  });

  it('the profile refused at RFC 7591 registration for a client_secret_basic or a public client, and an unknown profile, each naming its rule', async () => {
    const register = (payload: object) =>
      server.app.inject({ method: 'POST', url: '/oauth/register', payload: { redirect_uris: [CALLBACK], profile: 'fapi2', ...payload } });
    const cases: Array<[object, string]> = [
      [{ token_endpoint_auth_method: 'client_secret_basic' }, 'profile fapi2 requires token_endpoint_auth_method private_key_jwt'],
      [{ token_endpoint_auth_method: 'none' }, 'profile fapi2 requires a confidential client.'],
      [{ profile: 'fapi3' }, 'Profile must be none or fapi2'],
    ];
    for (const [payload, message] of cases) {
      const response = await register(payload);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_client_metadata' });
      expect(response.json().error_description).toContain(message);
    }
    const keyed = await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: jwksOf(key) });
    expect(keyed.statusCode, keyed.body).toBe(201);
    expect(keyed.json()).toMatchObject({ profile: 'fapi2' });
  });

  it('the profile refused at the admin create and update (JSON API rules) when the client uses a secret or the password grant', async () => {
    const withSecret = await createClient(server.deps, {}).catch((error: Error) => error);
    expect(withSecret).not.toBeInstanceOf(Error);
    const refused = await createClient(server.deps, { profile: 'fapi2' }).catch((error: Error) => error.message);
    expect(refused).toContain('profile fapi2 requires token_endpoint_auth_method private_key_jwt (mutual TLS is not supported).');
    const password = await createClient(server.deps, {
      profile: 'fapi2',
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: JSON.stringify(jwksOf(key)),
      grantTypes: 'authorization_code password',
    }).catch((error: Error) => error.message);
    expect(password).toContain('profile fapi2 does not allow the password grant.');
    // Section 5.3.2.2: no plain http redirect URI off loopback, even where forceSslInRedirectUri false lets others have one.
    const lax = { ...server.deps, config: { ...server.deps.config, forceSslInRedirectUri: false } };
    const keyed = { profile: 'fapi2', tokenEndpointAuthMethod: 'private_key_jwt', jwks: JSON.stringify(jwksOf(key)) };
    const plainHttp = await createClient(lax, { ...keyed, redirectUri: 'http://rp.example/cb' }).catch((error: Error) => error.message);
    expect(plainHttp).toContain('profile fapi2 does not allow the redirect URI http://rp.example/cb');
    expect((await createClient(lax, { ...keyed, redirectUri: 'http://127.0.0.1:8080/cb' })).application.profile).toBe('fapi2');
  });

  it('require_signed_request_object (RFC 9101 section 10.5): plain refused, signed at /oauth/authorize or pushed accepted', async () => {
    const signingKey = await clientKey('ES256');
    const made = await createClient(server.deps, {
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: JSON.stringify(jwksOf(signingKey)),
      requireSignedRequestObject: true,
    });
    const jarClient: oauth.Client = { client_id: made.application.uid };
    const signing = { key: signingKey.privateKey, kid: signingKey.kid };
    const jarAuth = oauth.PrivateKeyJwt(signing);
    const parameters = { ...(await codeRequest(oauth.generateRandomCodeVerifier())), state: 'jar' };
    const plain = await alice.request({ method: 'GET', url: authorizeUrl({ client_id: jarClient.client_id, ...parameters }) });
    const plainLocation = new URL(String(plain.headers.location));
    expect(plainLocation.searchParams.get('error')).toBe('invalid_request');
    expect(plainLocation.searchParams.get('error_description')).toBe('A signed request object is required for this client.');
    const plainPushed = await oauth.pushedAuthorizationRequest(as, jarClient, jarAuth, parameters, http);
    expect(await errorOf(plainPushed)).toMatchObject({ status: 400, error: 'invalid_request' });

    const request = await oauth.issueRequestObject(as, jarClient, new URLSearchParams(parameters), signing);
    const direct = await alice.request({ method: 'GET', url: authorizeUrl({ client_id: jarClient.client_id, request }) });
    // The consent form carries the signed request itself, so the approval is a signed request too.
    expect(hiddenFields(direct.body)).toMatchObject({ client_id: jarClient.client_id, request });
    expect((await callbackOf(direct)).searchParams.get('code')).toBeTruthy();
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      jarClient,
      await oauth.pushedAuthorizationRequest(as, jarClient, jarAuth, { request }, http),
    );
    const viaPar = await alice.request({
      method: 'GET',
      url: authorizeUrl({ client_id: jarClient.client_id, request_uri: pushed.request_uri }),
    });
    expect((await callbackOf(viaPar)).searchParams.get('code')).toBeTruthy();
  });

  it('authorization_signed_response_alg (JARM section 3): the response JWT is signed with the client’s alg, which discovery lists', async () => {
    expect(as.authorization_signing_alg_values_supported).toEqual(['RS256', 'ES256', 'EdDSA']);
    const made = await createClient(server.deps, { authorizationSignedResponseAlg: 'EdDSA', scopes: 'read' });
    const jarmClient: oauth.Client = { client_id: made.application.uid };
    const redirect = await alice.request({
      method: 'GET',
      url: authorizeUrl({
        client_id: jarmClient.client_id,
        ...(await codeRequest(oauth.generateRandomCodeVerifier())),
        response_mode: 'jwt',
        state: 'jarm',
      }),
    });
    const callback = await callbackOf(redirect);
    const response = callback.searchParams.get('response')!;
    expect(decodeProtectedHeader(response).alg).toBe('EdDSA');
    const params = await oauth.validateJwtAuthResponse(
      { ...as, jwks_uri: `${server.baseUrl}/oauth/jwks` },
      { ...jarmClient, authorization_signed_response_alg: 'EdDSA' },
      callback,
      'jarm',
      http,
    );
    expect(params.get('code')).toBeTruthy();
    const bad = await createClient(server.deps, { authorizationSignedResponseAlg: 'HS256' }).catch((error: Error) => error.message);
    expect(bad).toContain('Authorization response signing algorithm must be RS256, ES256 or EdDSA');
  });

  it('a plain PKCE-less code request of an ordinary client still works: the profile is per client', async () => {
    const made = await createClient(server.deps, { scopes: 'read' });
    const response = await alice.request({
      method: 'GET',
      url: authorizeUrl({ client_id: made.application.uid, response_type: 'code', redirect_uri: CALLBACK, scope: 'read', state: 's' }),
    });
    expect(response.statusCode).toBe(200);
  });
});
