import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, locationParameters, PASSWORD, signedIn, type UserAgent } from '../helpers/end-user.js';
import { basic, bearer, introspectRequest, tokenInfoRequest } from '../helpers/oauth-requests.js';
import { authorize, openIdServer } from '../helpers/openid.js';
import {
  CALLBACK,
  discover,
  discoveredJwks,
  openIdProvider,
  suiteRequest,
  tokenEndpoint,
  userInfoClaims,
  type Client,
  type OpenIdProvider,
} from './support.js';

// OpenID Connect Core 1.0 section 8.1, pairwise subject identifiers (issue 31 item 3): a pairwise client is told a
// sub of its sector's (the host of its redirect URIs here), the same in every ID token, at UserInfo, at
// introspection and in its JWT access tokens, the same for every client of that sector, different for any other
// sector and from the user's own subject, and still recognised as the user when it comes back as id_token_hint.

const SALT = 'pairwise-salt-for-the-conformance-provider-0123';
const OTHER_SECTOR = 'https://other-sector.example.org/callback';
const SIGNED_OUT = 'https://client.example.com/signed-out';

describe('oidcc-pairwise-sub: OpenID Connect Core 1.0 section 8.1', () => {
  let op: OpenIdProvider;
  let pairwise: Client;
  beforeAll(async () => {
    op = await openIdProvider({
      config: { openid: { enabled: true, pairwiseSalt: SALT }, skipAuthorization: { whenPreviouslyAuthorized: true } },
    });
    pairwise = await op.newClient({ subjectType: 'pairwise', accessTokenFormat: 'jwt', postLogoutRedirectUri: SIGNED_OUT });
  });
  afterAll(() => op.close());

  /** The code flow for `client` at `redirectUri` (its only one), and the ID token checked as a relying party checks it. */
  const flow = async (client: Client, { agent = op.agent, redirectUri = CALLBACK, scope = 'openid' } = {}) => {
    const request = suiteRequest(client, { redirect_uri: redirectUri, scope });
    const redirect = await authorize(agent, request);
    const code = codeOf(redirect, redirectUri);
    const response = await tokenEndpoint(op, { grant_type: 'authorization_code', code, redirect_uri: redirectUri }, { client });
    expect(response.statusCode, response.body).toBe(200);
    const tokens = response.json() as { access_token: string; id_token: string; refresh_token?: string };
    return { tokens, claims: await idTokenClaims(tokens.id_token, client) };
  };

  const idTokenClaims = async (idToken: string, client: Client): Promise<JWTPayload> => {
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(await discoveredJwks(op.server)), {
      issuer: (await discover(op.server)).issuer as string,
      audience: client.application.uid,
      requiredClaims: ['sub'],
    });
    return payload;
  };

  it('Discovery 1.0 section 3: subject_types_supported lists pairwise while a salt makes it available, public alone otherwise', async () => {
    expect((await discover(op.server)).subject_types_supported).toEqual(['public', 'pairwise']);
    const unsalted = await openIdServer();
    try {
      const metadata = (await unsalted.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json();
      expect(metadata.subject_types_supported).toEqual(['public']);
    } finally {
      await unsalted.close();
    }
  });

  it("section 8.1: a pairwise client's sub is not the user's subject, and stays the same at every sign-in and refresh (Core 12.2)", async () => {
    const first = await flow(pairwise);
    expect(first.claims.sub).not.toBe(op.user.subject);
    expect(first.claims.sub).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await flow(pairwise, { agent: await op.signIn() });
    expect(again.claims.sub).toBe(first.claims.sub);
    const refreshed = await tokenEndpoint(
      op,
      { grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token! },
      { client: pairwise },
    );
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect((await idTokenClaims(refreshed.json().id_token, pairwise)).sub).toBe(first.claims.sub);
  });

  it('section 8.1: UserInfo, introspection and the JWT access token tell the pairwise client the same sub as its ID token', async () => {
    const { tokens, claims } = await flow(pairwise);
    await userInfoClaims(op, tokens.access_token, claims.sub);
    const introspected = await introspectRequest(
      op.server.app,
      { token: tokens.access_token },
      basic(pairwise.application.uid, pairwise.plainSecret!),
    );
    expect(introspected.json()).toMatchObject({ active: true, sub: claims.sub });
    const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(await discoveredJwks(op.server)), { typ: 'at+jwt' });
    expect(payload.sub).toBe(claims.sub);
  });

  it('section 8.1: clients of one sector share the sub; another sector, and a public client, see others', async () => {
    const sub = (await flow(pairwise)).claims.sub;
    expect((await flow(await op.newClient({ subjectType: 'pairwise' }))).claims.sub).toBe(sub);
    const otherSector = await op.newClient({ subjectType: 'pairwise', redirectUri: OTHER_SECTOR });
    const otherSub = (await flow(otherSector, { redirectUri: OTHER_SECTOR })).claims.sub;
    expect(otherSub).not.toBe(sub);
    expect(otherSub).not.toBe(op.user.subject);
    expect((await flow(op.client)).claims.sub).toBe(op.user.subject);
  });

  it("section 8.1: GET /oauth/token/info tells no pairwise client, in either sector, the user's numeric id", async () => {
    const otherSector = await op.newClient({ subjectType: 'pairwise', redirectUri: OTHER_SECTOR });
    const answers = [
      await tokenInfoRequest(op.server.app, bearer((await flow(pairwise)).tokens.access_token)),
      await tokenInfoRequest(op.server.app, bearer((await flow(otherSector, { redirectUri: OTHER_SECTOR })).tokens.access_token)),
    ];
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json().resource_owner_id).toBeNull();
    }
    expect(answers.map((answer) => answer.json().application.uid)).toEqual([pairwise.application.uid, otherSector.application.uid]);
    // A public client keeps Doorkeeper's field.
    const mine = await tokenInfoRequest(op.server.app, bearer((await flow(op.client)).tokens.access_token));
    expect(mine.json().resource_owner_id).toBe(op.user.id);
  });

  it('Core 3.1.2.1 id_token_hint: a pairwise ID token names its user (prompt=none succeeds), and not another user', async () => {
    const { tokens, claims } = await flow(pairwise);
    const hinted = suiteRequest(pairwise, { prompt: 'none', id_token_hint: tokens.id_token });
    const silent = await op.agent.request({ method: 'GET', url: authorizeUrl(hinted) });
    const code = codeOf(silent, CALLBACK);
    const exchanged = await tokenEndpoint(op, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, { client: pairwise });
    expect((await idTokenClaims(exchanged.json().id_token, pairwise)).sub).toBe(claims.sub);

    const other = await anotherUser();
    const otherHint = (await flow(pairwise, { agent: other })).tokens.id_token;
    const refused = await op.agent.request({
      method: 'GET',
      url: authorizeUrl(suiteRequest(pairwise, { prompt: 'none', id_token_hint: otherHint })),
    });
    expect(locationParameters(refused).get('error')).toBe('login_required');
  });

  it('RP-Initiated Logout 1.0 section 2: end_session takes the pairwise id_token_hint as the signed-in user and logs out at once', async () => {
    const agent = await op.signIn();
    const { tokens } = await flow(pairwise, { agent });
    const response = await agent.request({
      method: 'GET',
      url: `/oauth/end_session?${new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: SIGNED_OUT })}`,
    });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
    expect(response.headers.location).toBe(SIGNED_OUT);
  });

  let others = 0;
  const anotherUser = async (): Promise<UserAgent> => {
    const username = `pairwise-other-${++others}`;
    await op.server.deps.stores.userAdmin.create({ username, passwordHash: await op.server.deps.passwords.hash(PASSWORD) });
    return signedIn(op.server.app, username);
  };
});

function codeOf(redirect: LightMyRequestResponse, redirectUri: string): string {
  const location = String(redirect.headers.location);
  expect(location.startsWith(`${redirectUri}?`), `${redirect.statusCode} ${location} ${redirect.body.slice(0, 300)}`).toBe(true);
  const code = locationParameters(redirect).get('code');
  expect(code, location).toBeTruthy();
  return code!;
}
