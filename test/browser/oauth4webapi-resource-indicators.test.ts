import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard } from '@oauth-service/guard';
import type { UserRecord } from '../../src/oauth/store.js';
import { authorizeInChromium, screenshot } from '../helpers/browser.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { oauth4webapiCodeRequest } from '../helpers/oauth4webapi.js';
import { chromiumPage, closeAll } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 17 end to end: a client written with oauth4webapi asks for audience-restricted tokens (RFC 8707 resource
// indicators) while a person in Chromium signs in and consents. API A (opaque tokens) introspects the tokens meant
// for it with its own credentials (the "audience" introspection rule); API B gets RFC 9068 JWT access tokens that it
// verifies by the JWKS alone; an unregistered resource is invalid_target at the callback; and an API protected by
// the guard in remote mode with `resource` accepts A's token and refuses tokens for B.

const insecure = { [oauth.allowInsecureRequests]: true };
const API_A = 'https://api-a.example.com';
const API_B = 'https://api-b.example.com/v1';
const UNREGISTERED = 'https://unregistered.example.com';

type Confidential = { client: oauth.Client; auth: oauth.ClientAuth; secret: string };

describe('oauth4webapi with resource indicators (RFC 8707) in Chromium: audience-restricted opaque and JWT tokens', () => {
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let CALLBACK: string;
  let browser: Browser;
  let page: Page;
  let user: UserRecord;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let apiA: Confidential;
  let stranger: Confidential;
  let tokenForA: string;
  let tokenForB: string;

  beforeAll(async () => {
    server = await listeningTestServer(
      {
        openid: { enabled: true },
        introspection: {
          allow: [{ rule: 'sameApplication' }, { rule: 'tokenApplication' }, { rule: 'publicToken' }, { rule: 'audience' }],
        },
        optionalScopes: ['write'],
        scopeDescriptions: { read: 'Read your data', write: 'Update your data' },
      },
      { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } },
    );
    user = await createUser(server.deps, 'alice');
    callback = await clientCallbackServer();
    CALLBACK = callback.url;

    const confidential = async (name: string): Promise<Confidential> => {
      const { application, plainSecret } = await createClient(server.deps, { name, redirectUri: CALLBACK });
      return { client: { client_id: application.uid }, auth: oauth.ClientSecretBasic(plainSecret!), secret: plainSecret! };
    };
    apiA = await confidential('API A');
    stranger = await confidential('Another API');
    await server.deps.stores.resources.create({
      uri: API_A,
      name: 'API A',
      scopes: ['read', 'write'],
      tokenFormat: 'opaque',
      accessTokenLifetime: null,
      serverClientId: apiA.client.client_id,
    });
    await server.deps.stores.resources.create({
      uri: API_B,
      name: 'API B',
      scopes: ['read'],
      tokenFormat: 'jwt',
      accessTokenLifetime: 900,
      serverClientId: null,
    });

    const application = (await createClient(server.deps, { name: 'Resource Client', confidential: false, redirectUri: CALLBACK }))
      .application;
    client = { client_id: application.uid };
    as = {
      issuer: server.baseUrl,
      authorization_endpoint: `${server.baseUrl}/oauth/authorize`,
      token_endpoint: `${server.baseUrl}/oauth/token`,
      introspection_endpoint: `${server.baseUrl}/oauth/introspect`,
      jwks_uri: `${server.baseUrl}/oauth/jwks`,
      authorization_response_iss_parameter_supported: true,
    };
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server, callback));

  /** The authorization URL as oauth4webapi's users build it, one `resource` per API (repeatable, RFC 8707 section 2). */
  const authorizationRequest = (scope: string, resources: string[]) =>
    oauth4webapiCodeRequest(as, client, CALLBACK, { scope, resource: resources });

  /** Signs in when the login page comes, approves on the consent page (after `onConsent`), returns the callback URL. */
  async function approve(url: string, onConsent: () => Promise<void> = async () => {}): Promise<URL> {
    const landed = await authorizeInChromium(page, url, {
      callbackUrl: CALLBACK,
      username: 'alice',
      password: PASSWORD,
      async onConsent() {
        expect(await page.locator('h1').textContent()).toBe('Authorization required');
        await onConsent();
      },
    });
    expect(callback.requests.map((request) => request.url)).toContain(landed.href);
    return landed;
  }

  /** The code exchange with PKCE and `resource` among the additional parameters (oauth4webapi's way of adding any). */
  async function exchange(request: { codeVerifier: string; state: string }, at: URL, resource: string) {
    const parameters = oauth.validateAuthResponse(as, client, at, request.state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), parameters, CALLBACK, request.codeVerifier, {
      ...insecure,
      additionalParameters: { resource },
    });
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }

  const introspect = async (token: string, by: Confidential) =>
    oauth.processIntrospectionResponse(as, by.client, await oauth.introspectionRequest(as, by.client, by.auth, token, insecure));

  it('authorization with resource=API A: Chromium signs in, the consent screen names API A, the code becomes a token', async () => {
    const request = await authorizationRequest('read write', [API_A]);
    const at = await approve(request.url, async () => {
      expect(await page.locator('p.prompt').textContent()).toBe('Authorize Resource Client to use your account?');
      expect(await page.locator('#oauth-permissions li').allTextContents()).toEqual(['Read your data', 'Update your data']);
      expect(await page.locator('#oauth-resources li').allTextContents()).toEqual([API_A]);
      await screenshot(page, 'consent-resource-indicators');
    });
    const tokens = await exchange(request, at, API_A);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('read write');
    // API A's tokens are opaque.
    expect(tokens.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    tokenForA = tokens.access_token;
  });

  it("API A's own client introspects the token (the audience rule): active, aud = API A", async () => {
    const answer = await introspect(tokenForA, apiA);
    expect(answer).toMatchObject({ active: true, aud: API_A, scope: 'read write', client_id: client.client_id, token_type: 'Bearer' });
  });

  it('another confidential client introspecting the same token is told it is inactive, and nothing else', async () => {
    expect(await introspect(tokenForA, stranger)).toEqual({ active: false });
  });

  it('authorization with resource=API B (token format jwt): an RFC 9068 JWT verified with jose against /oauth/jwks', async () => {
    const request = await authorizationRequest('read', [API_B]);
    // Consent given for API A is not consent for API B: the screen comes again and names B.
    const at = await approve(request.url, async () => {
      expect(await page.locator('#oauth-resources li').allTextContents()).toEqual([API_B]);
    });
    const tokens = await exchange(request, at, API_B);
    expect(tokens.expires_in).toBe(900);
    tokenForB = tokens.access_token;
    expect(decodeProtectedHeader(tokenForB)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    const { payload, protectedHeader } = await jwtVerify(tokenForB, createRemoteJWKSet(new URL(as.jwks_uri!)), {
      issuer: server.baseUrl,
      audience: API_B,
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload).toMatchObject({ aud: API_B, sub: user.subject, client_id: client.client_id, scope: 'read' });
    expect(payload.exp).toBe(payload.iat! + 900);
    // The JWT is not meant for API A: API A's client cannot introspect it.
    expect(await introspect(tokenForB, apiA)).toEqual({ active: false });
  });

  it('a client_credentials token with resource=API B from a confidential client is a JWT for API B too', async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      stranger.client,
      stranger.auth,
      { scope: 'read', resource: API_B },
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, stranger.client, response);
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(as.jwks_uri!)), {
      issuer: server.baseUrl,
      audience: API_B,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ sub: stranger.client.client_id, client_id: stranger.client.client_id, scope: 'read' });
  });

  it('an unregistered resource comes back to the callback as invalid_target, which validateAuthResponse throws', async () => {
    const request = await authorizationRequest('read', [UNREGISTERED]);
    await page.goto(request.url);
    await page.waitForURL((at) => at.href.startsWith(CALLBACK));
    const at = new URL(page.url());
    expect(at.searchParams.has('code')).toBe(false);
    expect(() => oauth.validateAuthResponse(as, client, at, request.state)).toThrow(
      expect.objectContaining({
        code: oauth.AUTHORIZATION_RESPONSE_ERROR,
        error: 'invalid_target',
        error_description: `The resource ${UNREGISTERED} is not registered.`,
      }),
    );
  });

  describe('an API protected by the guard in remote mode with resource = API A', () => {
    let api: FastifyInstance;
    beforeAll(async () => {
      api = Fastify();
      await api.register(serviceGuard, {
        mode: 'remote',
        introspectionUrl: as.introspection_endpoint!,
        clientId: apiA.client.client_id,
        clientSecret: apiA.secret,
        resource: API_A,
      });
      api.get('/notes', { preHandler: api.serviceAuthorize('read') }, async (request) => {
        const token = await request.serviceToken();
        return { clientId: token?.clientId, audience: token?.audience };
      });
    });
    afterAll(() => api?.close());

    const call = (token: string) => api.inject({ method: 'GET', url: '/notes', headers: { authorization: `Bearer ${token}` } });

    it('accepts the token obtained for API A', async () => {
      const response = await call(tokenForA);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ clientId: client.client_id, audience: [API_A] });
    });

    it("refuses the user's token for API B: the service tells API A it is inactive (the audience rule)", async () => {
      const response = await call(tokenForB);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
    });

    it("refuses a B-audience token that API A's credentials may see (its own): the guard's audience check", async () => {
      // A client may introspect its own tokens, so the service answers active with aud = API B; the guard refuses it.
      const response = await oauth.clientCredentialsGrantRequest(as, apiA.client, apiA.auth, { scope: 'read', resource: API_B }, insecure);
      const { access_token: own } = await oauth.processClientCredentialsResponse(as, apiA.client, response);
      expect(await introspect(own, apiA)).toMatchObject({ active: true, aud: API_B });
      const refused = await call(own);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is not meant for this resource' });
      expect(refused.headers['www-authenticate']).toContain('error_description="The access token is not meant for this resource"');
    });
  });
});
