import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeInChromium, screenshot } from '../helpers/browser.js';
import { clientKey, jwksOf, type ClientKey } from '../helpers/client-assertions.js';
import { createClient, createUser, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { chromiumPage, closeAll } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';
import { discovered, insecureHttp } from '../helpers/oauth4webapi.js';

// Issue 36's acceptance end to end: a FAPI 2.0 client written with oauth4webapi (which implements PAR, JAR, DPoP and
// private_key_jwt as a FAPI client) against a client registered with profile fapi2, a person in headless Chromium
// as the user agent. oauth4webapi runs here in Node, as a FAPI client's back end does; Chromium signs in, consents and
// arrives at the client's callback. The whole flow: a signed request object pushed with private_key_jwt and DPoP ->
// /oauth/authorize?request_uri -> sign-in and consent -> a JWT-secured (JARM) response at the callback -> the code
// exchanged with DPoP -> the DPoP-bound token introspected active. And the same client refused without PAR.

const insecure = insecureHttp;

describe('oauth4webapi as a FAPI 2.0 client (profile fapi2) with Chromium as the user agent', () => {
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let browser: Browser;
  let page: Page;
  let as: oauth.AuthorizationServer;
  let key: ClientKey;
  let client: oauth.Client;
  let auth: oauth.ClientAuth;

  beforeAll(async () => {
    server = await listeningTestServer(
      { openid: { enabled: true }, scopeDescriptions: { read: 'Read your accounts' } },
      { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } },
    );
    await createUser(server.deps, 'alice');
    callback = await clientCallbackServer();
    key = await clientKey('ES256');
    const { application } = await createClient(server.deps, {
      name: 'FAPI Bank Client',
      redirectUri: callback.url,
      scopes: 'read',
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: JSON.stringify(jwksOf(key)),
      profile: 'fapi2',
      authorizationSignedResponseAlg: 'ES256',
    });
    // The client's registered metadata, as oauth4webapi checks the responses against it.
    client = { client_id: application.uid, authorization_signed_response_alg: 'ES256' };
    auth = oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.kid });
    as = await discovered(server.baseUrl);
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server, callback));

  /** Chromium at `url`: signs in when asked, approves on the consent page; where it lands. */
  async function browse(url: string): Promise<URL> {
    const landed = await authorizeInChromium(page, url, {
      callbackUrl: callback.url,
      username: 'alice',
      password: PASSWORD,
      async onConsent() {
        expect(await page.locator('h1').textContent()).toBe('Authorization required');
        await screenshot(page, 'consent-fapi2-client');
      },
    });
    expect(callback.requests.map((request) => request.url)).toContain(landed.href);
    return landed;
  }

  it('discovery: PAR endpoint, DPoP, private_key_jwt, the JARM algorithms', () => {
    expect(as.pushed_authorization_request_endpoint).toBe(`${server.baseUrl}/oauth/par`);
    expect(as.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
    expect(as.authorization_signing_alg_values_supported).toContain('ES256');
  });

  it('the whole flow: signed request object pushed with private_key_jwt and DPoP, Chromium consents, JARM, token with DPoP, introspected active', async () => {
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const parameters = new URLSearchParams({
      response_type: 'code',
      response_mode: 'jwt',
      redirect_uri: callback.url,
      scope: 'read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const request = await oauth.issueRequestObject(as, client, parameters, { key: key.privateKey, kid: key.kid });
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(as, client, auth, { request }, { ...insecure, DPoP }),
    );
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({ client_id: client.client_id, request_uri: pushed.request_uri }).toString();

    const at = await browse(authorizationUrl.href);
    // JARM: the callback carries one signed `response`, signed with the client's registered ES256.
    expect([...at.searchParams.keys()]).toEqual(['response']);
    expect(decodeProtectedHeader(at.searchParams.get('response')!).alg).toBe('ES256');
    const callbackParameters = await oauth.validateJwtAuthResponse(as, client, at, state, insecure);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callbackParameters, callback.url, verifier, { ...insecure, DPoP }),
    );
    expect(tokens).toMatchObject({ token_type: 'dpop', scope: 'read' });
    const introspection = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure),
    );
    expect(introspection).toMatchObject({ active: true, client_id: client.client_id, scope: 'read', token_type: 'DPoP' });
    expect(introspection.cnf).toEqual({ jkt: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });

  it('the same client without PAR: Chromium lands on the callback with invalid_request naming the FAPI 2.0 rule', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      response_type: 'code',
      redirect_uri: callback.url,
      scope: 'read',
      state: 'plain',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const at = await browse(url.href);
    expect(at.searchParams.get('error')).toBe('invalid_request');
    expect(at.searchParams.get('error_description')).toBe(
      'FAPI 2.0: pushed authorization requests are required for this client (profile fapi2).',
    );
    expect(at.searchParams.get('state')).toBe('plain');
    expect(at.searchParams.get('iss')).toBe(server.baseUrl);
  });
});
