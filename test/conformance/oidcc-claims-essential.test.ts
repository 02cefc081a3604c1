import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, createUser, hiddenFields, signedIn } from '../helpers/end-user.js';
import { authorize } from '../helpers/openid.js';
import {
  CLAIMS,
  codeFrom,
  discover,
  exchange,
  openIdProvider,
  suiteCodeFlow,
  suiteRequest,
  tokenEndpoint,
  userInfoClaims,
  validIdToken,
  type OpenIdProvider,
} from './support.js';

// oidcc-claims-essential: scope openid and claims={"userinfo":{"name":{"essential":true}}} (OpenID Connect Core 1.0
// section 5.5); UserInfo then returns name, which no scope asked for. With it, the rest of section 5.5 that the suite's
// Config OP profile reads: discovery's claims_parameter_supported, the id_token member, essential claims the user does
// not hold (5.5.1: never an error), and the claims remembered through the code and its refreshes.

const claims = (request: object) => JSON.stringify(request);

describe('oidcc-claims-essential: OpenID Connect Core 1.0 section 5.5', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('OpenID Connect Core 1.0 section 5.5: discovery says claims_parameter_supported, and claims_supported names the claims users hold', async () => {
    const metadata = await discover(op.server);
    expect(metadata.claims_parameter_supported).toBe(true);
    expect(metadata.claims_supported).toEqual(
      expect.arrayContaining(['sub', 'name', 'email', 'address', 'phone_number', 'auth_time', 'iss']),
    );
  });

  it('OpenID Connect Core 1.0 section 5.5: userinfo name as an essential claim with scope openid: the consent page names it, UserInfo returns it', async () => {
    const request = suiteRequest(op.client, { claims: claims({ userinfo: { name: { essential: true } } }) });
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('See your name');
    const code = codeFrom(await op.agent.post('/oauth/authorize', hiddenFields(page.body)), request);
    const { tokens, claims: idToken } = await exchange(op, code, { nonce: request.nonce });
    expect(tokens.scope).toBe('openid');
    expect(idToken).not.toHaveProperty('name');
    expect(await userInfoClaims(op, tokens.access_token, idToken.sub)).toEqual({ sub: idToken.sub, name: CLAIMS.name });
  });

  it('OpenID Connect Core 1.0 section 5.5.1: an essential claim the user does not hold is left out, and is no error', async () => {
    const user = await createUser(op.server.deps, 'no-claims');
    const agent = await signedIn(op.server.app, user.username);
    // Someone other than the suite's user, whose sub the suite's checks expect.
    const sent = suiteRequest(op.client, { claims: claims({ userinfo: { name: { essential: true }, email: null } }) });
    const { tokens } = await exchange({ ...op, user }, codeFrom(await authorize(agent, sent), sent), { nonce: sent.nonce });
    expect(await userInfoClaims({ ...op, user }, tokens.access_token, user.subject)).toEqual({ sub: user.subject });
  });

  it('OpenID Connect Core 1.0 section 5.5: the id_token member puts its claims in the ID token (auth_time too), not in UserInfo', async () => {
    const { tokens, claims: idToken } = await suiteCodeFlow(op, {
      claims: claims({ id_token: { email: { essential: true }, email_verified: null, auth_time: { essential: true } } }),
    });
    expect(idToken).toMatchObject({ email: CLAIMS.email, email_verified: true, auth_time: expect.any(Number) });
    expect(await userInfoClaims(op, tokens.access_token, idToken.sub)).toEqual({ sub: idToken.sub });
  });

  it('OpenID Connect Core 1.0 section 5.5: the claims asked for are remembered through the code and every refresh', async () => {
    const first = await suiteCodeFlow(op, { claims: claims({ userinfo: { phone_number: null }, id_token: { given_name: null } }) });
    expect(first.claims.given_name).toBe(CLAIMS.givenName);
    op.server.clock.advance(5);
    const response = await tokenEndpoint(op, { grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token! });
    expect(response.statusCode, response.body).toBe(200);
    const refreshed = response.json();
    const idToken = await validIdToken(op, refreshed.id_token, op.client, { accessToken: refreshed.access_token });
    expect(idToken.given_name).toBe(CLAIMS.givenName);
    expect(await userInfoClaims(op, refreshed.access_token, idToken.sub)).toEqual({ sub: idToken.sub, phone_number: CLAIMS.phoneNumber });
  });

  it('OpenID Connect Core 1.0 section 5.5: a claim the scopes already release is not named again on the consent page', async () => {
    const request = suiteRequest(op.client, {
      scope: 'openid profile',
      prompt: 'consent',
      claims: claims({ userinfo: { name: null, email: null } }),
    });
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(page.body).toContain('<li>See your name and profile details</li>');
    expect(page.body).toContain('<li>See your email address</li>');
  });
});
