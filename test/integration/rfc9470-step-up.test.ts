import Fastify, { type FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard, type GuardToken } from '@oauth-service/guard';
import { freePort } from '../../scripts/lib/ports.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { countRows, createClient, createUser, locationParameters, PASSWORD, userAgent, type UserAgent } from '../helpers/end-user.js';
import { authorize, CALLBACK, openIdServer } from '../helpers/openid.js';
import { codeAt, secretOnPage } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { discovered, insecureHttp } from '../helpers/oauth4webapi.js';

// Issue 35 items 3 and 4: what the sign-in was (RFC 8176 amr, OpenID Connect Core 2 acr and auth_time) in the ID token,
// the JWT access token and introspection, and RFC 9470 step-up: an API behind the guard refuses a token whose sign-in
// is too old with insufficient_user_authentication; a real client (oauth4webapi) reads the challenge, authorizes again
// with its max_age and acr_values, the user signs in again, and the new token passes. With the mfa acr asked for, the
// user who has no second factor sets one up at the second step of the sign-in (issue 35 item 2), and the token passes.

const RESOURCE = 'https://payments.example.com/api';
const PWD = 'urn:oauth-service:acr:pwd';
const MFA = 'urn:oauth-service:acr:mfa';
const PHR = 'urn:oauth-service:acr:phr';
const MAX_AGE = 300;

describe(`RFC 9470 step-up and the sign-in in tokens (${backend})`, () => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let clientAuth: oauth.ClientAuth;
  let agent: UserAgent;
  const apis: FastifyInstance[] = [];
  let jwtApi: string;
  let remoteApi: string;
  let mfaApi: string;
  let totpSecret: string | null = null;

  // The API's routes: /payments requires a sign-in of at most MAX_AGE seconds at the pwd level or above.
  async function api(options: Parameters<typeof serviceGuard>[1]): Promise<string> {
    const app = Fastify();
    await app.register(serviceGuard, { ...options, now: () => server.clock.now.getTime() } as Parameters<typeof serviceGuard>[1]);
    app.post(
      '/payments',
      { config: { requireAuthentication: { acr: [PWD, MFA], maxAge: MAX_AGE } }, preHandler: app.serviceAuthorize('read') },
      async (request) => ({ paid: true, acr: ((await request.serviceToken()) as GuardToken).acr }),
    );
    // /transfers requires the mfa acr: a password alone is not enough.
    app.post(
      '/transfers',
      { config: { requireAuthentication: { acr: [MFA] } }, preHandler: app.serviceAuthorize('read') },
      async (request) => ({ transferred: true, acr: ((await request.serviceToken()) as GuardToken).acr }),
    );
    apis.push(app);
    return `${await app.listen({ port: 0, host: '127.0.0.1' })}/payments`;
  }

  beforeAll(async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    server = await openIdServer({ config: { baseUrl } });
    await server.app.listen({ port, host: '127.0.0.1' });
    const registered = await createClient(server.deps, { scopes: 'openid read' });
    await server.deps.stores.resources.create({
      uri: RESOURCE,
      name: 'Payments',
      scopes: ['read', 'openid'],
      tokenFormat: 'jwt',
      accessTokenLifetime: 3600,
      serverClientId: null,
    });
    await createUser(server.deps, 'payer');
    as = await discovered(baseUrl, 'oidc');
    client = { client_id: registered.application.uid, id_token_signed_response_alg: 'RS256' };
    clientAuth = oauth.ClientSecretBasic(registered.plainSecret!);
    jwtApi = await api({ mode: 'jwt', issuer: baseUrl, resource: RESOURCE });
    mfaApi = jwtApi.replace(/\/payments$/, '/transfers');
    // Remote mode reads acr and auth_time from introspection (RFC 9470 section 6.1); the client's credentials stand in
    // for the API's own (config introspection.allow: sameApplication).
    remoteApi = await api({
      mode: 'remote',
      introspectionUrl: `${baseUrl}/oauth/introspect`,
      clientId: registered.application.uid,
      clientSecret: registered.plainSecret!,
      cacheTtlSeconds: 0,
    });
    agent = userAgent(server.app);
  });
  afterAll(async () => {
    await Promise.all(apis.map((app) => app.close()));
    await server.close();
  });

  /** Authorizes as the browser (signing in whenever the service asks), then exchanges the code as the client. */
  async function tokensFor(parameters: Record<string, string> = {}) {
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const request = { client_id: client.client_id, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid read' };
    let redirect = await authorize(agent, { ...request, resource: RESOURCE, state, nonce, ...parameters });
    const signedIn = redirect.headers.location === '/login';
    if (signedIn) {
      const login = await agent.post('/login', { username: 'payer', password: PASSWORD });
      expect(login.statusCode).toBe(303);
      const back = login.headers.location === '/login/second-factor' ? await secondFactor() : String(login.headers.location);
      redirect = await authorize(agent, Object.fromEntries(new URL(back, as.issuer).searchParams));
    }
    const callback = oauth.validateAuthResponse(as, client, new URL(String(redirect.headers.location)), state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callback, CALLBACK, oauth.nopkce, {
      ...insecureHttp,
      additionalParameters: { resource: RESOURCE },
    });
    const maxAge = parameters.max_age === undefined ? oauth.skipAuthTimeCheck : Number(parameters.max_age);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, maxAge });
    return { tokens, idToken: oauth.getValidatedIdTokenClaims(tokens)!, signedIn };
  }

  /**
   * The second step as the user takes it: the first time (no second factor yet) setting up an authenticator app from
   * the secret on the page, later a code from it. Where the sign-in goes back to.
   */
  async function secondFactor(): Promise<string> {
    const page = await agent.request({ method: 'GET', url: '/login/second-factor' });
    if (totpSecret === null) {
      totpSecret = secretOnPage(page.body);
      const enrolled = await agent.post(
        '/login/second-factor/enrol',
        { code: await codeAt(totpSecret, server.clock.now) },
        '/login/second-factor',
      );
      expect(enrolled.statusCode).toBe(200);
      return /class="button" href="([^"]+)"/.exec(enrolled.body)![1]!.replace(/&amp;/g, '&');
    }
    const passed = await agent.post('/login/second-factor', { code: await codeAt(totpSecret, server.clock.now) }, '/login/second-factor');
    expect(passed.statusCode).toBe(303);
    return String(passed.headers.location);
  }

  const pay = (url: string, token: string) =>
    oauth.protectedResourceRequest(token, 'POST', new URL(url), new Headers(), null, insecureHttp);

  it('discovery lists the acr a sign-in here reaches, and amr and acr among the claims', () => {
    expect(as.acr_values_supported).toEqual([PWD, MFA, PHR]);
    expect(as.claims_supported).toEqual(expect.arrayContaining(['amr', 'acr', 'auth_time']));
  });

  it('the ID token, the JWT access token and introspection carry amr ["pwd"], the pwd acr and auth_time', async () => {
    const { tokens, idToken } = await tokensFor();
    const signedInAt = idToken.auth_time!;
    expect(signedInAt).toBeGreaterThanOrEqual(Math.floor(server.clock.now.getTime() / 1000) - 5);
    expect(idToken).toMatchObject({ amr: ['pwd'], acr: PWD });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ amr: ['pwd'], acr: PWD, auth_time: signedInAt, aud: RESOURCE });
    const introspection = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, tokens.access_token, insecureHttp),
    );
    expect(introspection).toMatchObject({ active: true, amr: ['pwd'], acr: PWD, auth_time: signedInAt });
    // Recorded from the session on the code and copied to the token and its refresh (not inferred from auth_time, as
    // for rows older than the columns).
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecureHttp),
    );
    const rows = await server.app.database.sql.query<{ amr: string; acr: string }>(
      `SELECT g.amr, g.acr FROM oauth_access_grants g JOIN oauth_access_tokens t ON t.access_grant_id = g.id WHERE t.token = $1
       UNION ALL SELECT amr, acr FROM oauth_access_tokens WHERE token = $1 OR token = $2`,
      [sha256Hex(tokens.access_token), sha256Hex(refreshed.access_token)],
    );
    expect(rows).toEqual(Array.from({ length: 3 }, () => ({ amr: 'pwd', acr: PWD })));
    expect(oauth.getValidatedIdTokenClaims(refreshed)).toMatchObject({ amr: ['pwd'], acr: PWD, auth_time: signedInAt });
  });

  it('step-up: a sign-in older than maxAge is refused with the challenge; the client re-authorizes with it and the new token passes', async () => {
    const { tokens: first } = await tokensFor();
    expect((await pay(jwtApi, first.access_token)).status).toBe(200);
    // acr_values alone (voluntary, Core 3.1.2.1) that the session's sign-in already meets asks for no new sign-in.
    expect((await tokensFor({ acr_values: PWD })).signedIn).toBe(false);
    server.clock.advance(MAX_AGE + 60);
    const challenges: oauth.WWWAuthenticateChallenge[] = [];
    for (const url of [jwtApi, remoteApi]) {
      const refused = await pay(url, first.access_token).catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
      const { cause, response } = refused as oauth.WWWAuthenticateChallengeError;
      expect(response.status).toBe(401);
      expect(cause[0]).toMatchObject({
        scheme: 'bearer',
        parameters: {
          error: 'insufficient_user_authentication',
          error_description: 'More recent authentication is required',
          acr_values: `${PWD} ${MFA}`,
          max_age: String(MAX_AGE),
        },
      });
      challenges.push(cause[0]!);
    }
    const { parameters } = challenges[0]!;
    // RFC 9470 section 4: the client's next authorization request carries the challenge's max_age and acr_values; the
    // session's sign-in is too old for it, so the user is asked to sign in again.
    const { tokens, idToken, signedIn } = await tokensFor({ max_age: parameters.max_age!, acr_values: parameters.acr_values! });
    expect(signedIn).toBe(true);
    expect(idToken.auth_time).toBeGreaterThanOrEqual(Math.floor(server.clock.now.getTime() / 1000) - 5);
    expect(idToken.acr).toBe(PWD);
    for (const url of [jwtApi, remoteApi]) expect(await (await pay(url, tokens.access_token)).json()).toEqual({ paid: true, acr: PWD });
  });

  it('an essential acr no sign-in here reaches is unmet_authentication_requirements at the redirect, and nothing is stored', async () => {
    const [grants, tokens] = [await countRows(server, 'oauth_access_grants'), await countRows(server, 'oauth_access_tokens')];
    const claims = JSON.stringify({ id_token: { acr: { essential: true, values: ['urn:example:acr:never-issued'] } } });
    const redirect = await authorize(agent, {
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid read',
      state: 'xyz',
      claims,
    });
    expect(String(redirect.headers.location)).toMatch(/^https:\/\/client\.example\.com\/callback\?/);
    expect(Object.fromEntries(locationParameters(redirect))).toMatchObject({ error: 'unmet_authentication_requirements', state: 'xyz' });
    expect([await countRows(server, 'oauth_access_grants'), await countRows(server, 'oauth_access_tokens')]).toEqual([grants, tokens]);
  });

  it('step-up to mfa: a password-only token is refused naming the mfa acr; the user adds a second factor on re-authorization, and the new token passes', async () => {
    const { tokens: first } = await tokensFor();
    expect(decodeJwt(first.access_token)).toMatchObject({ acr: PWD });
    const refused = await pay(mfaApi, first.access_token).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const { cause, response } = refused as oauth.WWWAuthenticateChallengeError;
    expect(response.status).toBe(401);
    expect(cause[0]!.parameters).toMatchObject({ error: 'insufficient_user_authentication', acr_values: MFA });
    // The session's sign-in (a password) does not reach mfa: sign in again, with the second step, where 'payer', who
    // has no second factor yet, sets one up.
    const { tokens, idToken, signedIn } = await tokensFor({ acr_values: cause[0]!.parameters.acr_values! });
    expect(signedIn).toBe(true);
    expect(totpSecret).not.toBeNull();
    expect(idToken).toMatchObject({ amr: ['pwd', 'otp'], acr: MFA });
    expect(await (await pay(mfaApi, tokens.access_token)).json()).toEqual({ transferred: true, acr: MFA });
  });

  // The user has no passkey, so no sign-in of theirs reaches phr; the service once sent them back to /login after every
  // sign-in, for ever.
  it('acr_values asking phr of a user without a passkey: one sign-in, and the code says what it reached (voluntary)', async () => {
    server.clock.advance(30); // a one-time code of its own
    const { tokens, idToken, signedIn } = await tokensFor({ acr_values: PHR });
    expect(signedIn).toBe(true);
    expect(idToken).toMatchObject({ amr: ['pwd', 'otp'], acr: MFA });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ acr: MFA });
  });

  it('an essential phr acr claim that the sign-in made for it does not reach is unmet_authentication_requirements', async () => {
    server.clock.advance(30);
    const claims = JSON.stringify({ id_token: { acr: { essential: true, values: [PHR] } } });
    const request = { client_id: client.client_id, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid read' };
    const first = await authorize(agent, { ...request, state: 's1', claims });
    expect(first.headers.location).toBe('/login');
    const login = await agent.post('/login', { username: 'payer', password: PASSWORD });
    const secondStep = await agent.post(
      '/login/second-factor',
      { code: await codeAt(totpSecret!, server.clock.now) },
      '/login/second-factor',
    );
    expect([login.headers.location, secondStep.statusCode]).toEqual(['/login/second-factor', 303]);
    const back = await authorize(agent, Object.fromEntries(new URL(String(secondStep.headers.location), as.issuer).searchParams));
    expect(Object.fromEntries(locationParameters(back))).toMatchObject({ error: 'unmet_authentication_requirements', state: 's1' });
  });
});
