import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { rotateSigningKey } from '../../src/oauth/keys/signing-key-service.js';
import type { UserRecord } from '../../src/oauth/store.js';
import { authorizeInChromium, screenshot } from '../helpers/browser.js';
import { createClient, PASSWORD } from '../helpers/end-user.js';
import { clientCallbackServer, listeningTestServer, type ClientCallback } from '../helpers/listening-server.js';
import { chromiumPage, closeAll } from '../helpers/relying-party-page.js';
import type { TestServer } from '../helpers/test-server.js';

// A relying party as most Node applications write one (openid-client 6) and a person in Chromium: Discovery,
// the code flow with PKCE S256, state and nonce (Core 3.1), the ID token verified by openid-client against the
// JWKS, UserInfo (Core 5.3), refresh (Core 12), RP-Initiated Logout 1.0, then a signing key rotated under it.

// openid-client refetches its cached JWKS for an unknown kid only once that copy is 60 s old (oauth4webapi).
const RP_JWKS_REFETCH_AFTER_MS = 61_000;
// The server's signer reads its key list at most every 5 s of real time (token-signer.ts).
const SIGNER_KEY_LIST_TTL_MS = 5_100;

describe('openid-client 6 relying party with Chromium: discovery, code flow, UserInfo, refresh, logout, key rotation', () => {
  let server: TestServer & { baseUrl: string };
  let callback: ClientCallback;
  let afterLogout: string;
  let browser: Browser;
  let page: Page;
  let user: UserRecord;
  let config: client.Configuration;
  const jwksFetches: number[] = [];
  let firstIdToken: string;
  let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

  beforeAll(async () => {
    server = await listeningTestServer({ openid: { enabled: true } }, { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
    user = await server.deps.stores.userAdmin.create({
      username: 'alice',
      passwordHash: await server.deps.passwords.hash(PASSWORD),
      name: 'Alice Liddell',
      givenName: 'Alice',
      familyName: 'Liddell',
      email: 'alice@example.com',
      emailVerified: true,
      phoneNumber: '+44 20 7946 0000',
    });
    callback = await clientCallbackServer();
    afterLogout = new URL('/signed-out', callback.url).href;
    const { application, plainSecret } = await createClient(server.deps, { name: 'Relying Party', redirectUri: callback.url });
    await server.deps.stores.applicationAdmin.update(application.id, { postLogoutRedirectUris: [afterLogout] });
    config = await client.discovery(new URL(server.baseUrl), application.uid, undefined, client.ClientSecretBasic(plainSecret!), {
      // Loopback http; and verify the ID token's signature by the JWKS even though it comes straight from the token
      // endpoint (openid-client skips that unless asked, Core 3.1.3.7 item 6).
      execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
    });
    const jwksUri = config.serverMetadata().jwks_uri;
    config[client.customFetch] = (url, options) => {
      if (url === jwksUri) jwksFetches.push(Date.now());
      return fetch(url, options as RequestInit);
    };
    ({ browser, page } = await chromiumPage());
  });
  afterAll(() => closeAll(browser, server, callback));

  function authorizationRequest(scope = 'openid profile email') {
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    return {
      codeVerifier,
      state,
      nonce,
      url: async () =>
        client.buildAuthorizationUrl(config, {
          redirect_uri: callback.url,
          scope,
          code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        }),
    };
  }

  /** Signs in on the login page, approves on the consent page if one is shown, and returns the callback URL. */
  async function signInAndApprove(url: URL): Promise<URL> {
    const landed = await authorizeInChromium(page, url.href, {
      callbackUrl: callback.url,
      username: 'alice',
      password: PASSWORD,
      mustSignIn: true,
    });
    expect(callback.requests.map((request) => request.url)).toContain(landed.href);
    return landed;
  }

  it('discovers the provider from its issuer URL', () => {
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(server.baseUrl);
    expect(metadata).toMatchObject({
      authorization_endpoint: `${server.baseUrl}/oauth/authorize`,
      token_endpoint: `${server.baseUrl}/oauth/token`,
      userinfo_endpoint: `${server.baseUrl}/oauth/userinfo`,
      jwks_uri: `${server.baseUrl}/oauth/jwks`,
      end_session_endpoint: `${server.baseUrl}/oauth/end_session`,
    });
    expect(metadata.code_challenge_methods_supported).toContain('S256');
  });

  it('signs in through Chromium; authorizationCodeGrant checks PKCE, state, iss and nonce and verifies the ID token by the JWKS', async () => {
    const request = authorizationRequest();
    const callbackUrl = await signInAndApprove(await request.url());
    await screenshot(page, 'openid-client-callback');
    tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: request.codeVerifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
      idTokenExpected: true,
    });
    expect(jwksFetches).toHaveLength(1);
    expect(tokens.scope).toBe('openid profile email');
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.subject);
    expect(claims.sub).not.toBe('alice');
    expect(claims).toMatchObject({ iss: server.baseUrl, aud: config.clientMetadata().client_id, nonce: request.nonce, amr: ['pwd'] });
    firstIdToken = tokens.id_token!;
  });

  it('fetchUserInfo returns the claims of the granted scopes (profile, email) for the ID token subject, and no others', async () => {
    const userInfo = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(userInfo).toMatchObject({
      sub: user.subject,
      name: 'Alice Liddell',
      given_name: 'Alice',
      family_name: 'Liddell',
      email: 'alice@example.com',
      email_verified: true,
    });
    expect(userInfo).not.toHaveProperty('phone_number');
    expect(userInfo).not.toHaveProperty('preferred_username');
    // openid-client refuses a response about anyone else.
    await expect(client.fetchUserInfo(config, tokens.access_token, 'someone-else')).rejects.toMatchObject({
      code: 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
    });
  });

  it('refreshTokenGrant returns a new ID token for the same subject, without the nonce', async () => {
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    const claims = refreshed.claims()!;
    expect(claims.sub).toBe(tokens.claims()!.sub);
    expect(claims.auth_time).toBe(tokens.claims()!.auth_time);
    expect(claims).not.toHaveProperty('nonce');
    expect(refreshed.id_token).not.toBe(firstIdToken);
    tokens = refreshed;
  });

  it('buildEndSessionUrl with id_token_hint signs out and returns to the registered post_logout_redirect_uri with state', async () => {
    const state = client.randomState();
    const endSession = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: afterLogout,
      state,
    });
    await page.goto(endSession.href);
    await page.waitForURL((at) => at.href.startsWith(afterLogout));
    expect(new URL(page.url()).searchParams.get('state')).toBe(state);
    expect(callback.requests).toContainEqual({ method: 'GET', url: `${afterLogout}?state=${state}`, body: '' });

    // The session at the provider is gone: the next authorization request asks for a sign-in.
    await page.goto((await authorizationRequest().url()).href);
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it(
    'a rotated RS256 key: published ahead, then signing; the old ID token still verifies, the new one carries the new kid and openid-client refetches the JWKS for it',
    async () => {
      const oldKid = decodeProtectedHeader(firstIdToken).kid;
      const rotated = await rotateSigningKey(server.deps, 'RS256');
      expect(rotated.kid).not.toBe(oldKid);
      const jwksUri = new URL(config.serverMetadata().jwks_uri!);
      const served = async () => ((await (await fetch(jwksUri)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
      expect(await served()).toEqual(expect.arrayContaining([oldKid, rotated.kid]));
      // Published ahead of use: the old key still signs (a fresh signer, so no cached key list decides this).
      expect(decodeProtectedHeader(await server.deps.signer.sign({ sub: 'probe' })).kid).toBe(oldKid);

      // The new key signs once its publish-ahead window has passed on the server's clock; the signer sees it once its
      // key list is re-read, and openid-client refetches for the unknown kid once its copy of the JWKS is a minute old.
      server.clock.advance(server.config.keys.publishAheadSeconds + 1);
      // That minute passes for the whole process at once instead of being waited out (issue 30: the file took 63 s):
      // openid-client and the server read the same Date, which keeps running from there; timers stay real.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      onTestFinished(() => void vi.useRealTimers());
      vi.setSystemTime(Math.max(Date.now(), jwksFetches[0]! + RP_JWKS_REFETCH_AFTER_MS));
      await sleep(SIGNER_KEY_LIST_TTL_MS);

      // Core 10.1.1: the old key stays in the JWKS while what it signed can still be presented.
      const { payload, protectedHeader } = await jwtVerify(firstIdToken, createRemoteJWKSet(jwksUri), {
        issuer: server.baseUrl,
        audience: config.clientMetadata().client_id,
      });
      expect([payload.sub, protectedHeader.kid]).toEqual([user.subject, oldKid]);

      const request = authorizationRequest();
      const callbackUrl = await signInAndApprove(await request.url());
      const fresh = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: request.codeVerifier,
        expectedState: request.state,
        expectedNonce: request.nonce,
        idTokenExpected: true,
      });
      expect(decodeProtectedHeader(fresh.id_token!).kid).toBe(rotated.kid);
      expect(fresh.claims()).toMatchObject({ sub: user.subject, nonce: request.nonce });
      expect(jwksFetches).toHaveLength(2);
      expect(await served()).toEqual(expect.arrayContaining([oldKid, rotated.kid]));
    },
    RP_JWKS_REFETCH_AFTER_MS + 60_000,
  );
});
