import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateApplication } from '../../src/oauth/clients/applications.js';
import { authorizeUrl, hiddenFields } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import {
  CALLBACK,
  CLAIMS,
  codeFrom,
  exchange,
  openIdProvider,
  redirectedError,
  suiteRequest,
  tokenEndpoint,
  userInfoClaims,
  validIdToken,
  type Client,
  type OpenIdProvider,
} from '../conformance/support.js';

// OpenID Connect Core 1.0 sections 5.4 and 5.5 (issue 31, from review): the claims request parameter asks for claims by
// name, but only within the scopes the client may hold (client-holdings.ts): an admin's scope list, or what a
// self-registered client registered and registration.allowedScopes allows. Other claims are dropped, never released,
// and the consent page does not name them (5.5: the OP may decline to return a claim; 5.5.1: essential or not). A scope
// removed from the client takes its claims with it, as it takes itself (test/security/removed-scopes.test.ts).

const BEYOND_OPENID = JSON.stringify({
  userinfo: { email: null, phone_number: { essential: true }, address: null },
  id_token: { email: null, auth_time: { essential: true } },
});

/** The code flow with the consent page shown: the page, then UserInfo and the ID token the code gets. */
async function consentedFlow(op: OpenIdProvider, client: Client, parameters: Record<string, string>) {
  const request = suiteRequest(client, { prompt: 'consent', ...parameters });
  const page = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
  expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
  const code = codeFrom(await op.agent.post('/oauth/authorize', hiddenFields(page.body)), request);
  const { tokens, claims: idToken } = await exchange(op, code, { client, nonce: request.nonce });
  const userinfo = await userInfoClaims(op, tokens.access_token, idToken.sub);
  return { page: page.body, idToken, userinfo, refreshToken: tokens.refresh_token };
}

describe(`OpenID Connect Core 1.0 section 5.4: the claims parameter within the scopes a client holds (${backend})`, () => {
  let op: OpenIdProvider;
  beforeAll(
    async () =>
      (op = await openIdProvider({
        config: {
          registration: { policy: 'open', maxOpenRegistrations: 4, perAddressPerMinute: 0, allowedScopes: ['openid'] },
        },
      })),
  );
  afterAll(() => op.close());

  it('OpenID Connect Core 1.0 section 5.4: an admin client limited to openid gets none of the claims of email, phone or address by naming them', async () => {
    const client = await op.newClient({ name: 'Openid only', scopes: 'openid' });
    const email = suiteRequest(client, { scope: 'openid email' });
    expect(redirectedError(await op.agent.request({ method: 'GET', url: authorizeUrl(email) }), email)).toBe('invalid_scope');

    const { page, idToken, userinfo } = await consentedFlow(op, client, { claims: BEYOND_OPENID });
    expect(page).not.toContain('See your email address');
    expect(page).not.toContain('phone number');
    expect(page).not.toContain('postal address');
    expect(userinfo).toEqual({ sub: idToken.sub });
    expect(idToken).not.toHaveProperty('email');
    expect(idToken.auth_time, 'a claim of no scope still follows the request').toEqual(expect.any(Number));
  });

  it('OpenID Connect Core 1.0 section 5.4: an admin client holding email but not phone gets email only, named on the consent page', async () => {
    const client = await op.newClient({ name: 'Openid and email', scopes: 'openid email' });
    const { page, idToken, userinfo } = await consentedFlow(op, client, { claims: BEYOND_OPENID });
    expect(page).toContain('<li>See your email address</li>');
    expect(page).not.toContain('phone number');
    expect(userinfo).toEqual({ sub: idToken.sub, email: CLAIMS.email });
    expect(idToken.email).toBe(CLAIMS.email);
  });

  it('OpenID Connect Core 1.0 section 5.4: a claim of a scope removed from the client is gone from a code issued before and from every refresh', async () => {
    const client = await op.newClient({ name: 'Losing email', scopes: 'openid email' });
    const before = await consentedFlow(op, client, { claims: BEYOND_OPENID });
    expect(before.userinfo.email).toBe(CLAIMS.email);
    const request = suiteRequest(client, { claims: BEYOND_OPENID });
    const code = codeFrom(await op.agent.request({ method: 'GET', url: authorizeUrl(request) }), request);

    const { application } = client;
    await updateApplication(op.server.deps, application.id, {
      name: application.name,
      redirectUri: application.redirectUris.join('\n'),
      scopes: 'openid',
      confidential: true,
    });
    const exchanged = await exchange(op, code, { client, nonce: request.nonce });
    expect(exchanged.claims).not.toHaveProperty('email');
    expect(await userInfoClaims(op, exchanged.tokens.access_token, exchanged.claims.sub)).toEqual({ sub: exchanged.claims.sub });

    const refreshed = await tokenEndpoint(op, { grant_type: 'refresh_token', refresh_token: before.refreshToken! }, { client });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const idToken = await validIdToken(op, refreshed.json().id_token, client, { accessToken: refreshed.json().access_token });
    expect(idToken).not.toHaveProperty('email');
    expect(await userInfoClaims(op, refreshed.json().access_token, idToken.sub)).toEqual({ sub: idToken.sub });
  });

  it('OpenID Connect Core 1.0 section 5.4: a self-registered client gets no claim of a scope registration.allowedScopes does not allow', async () => {
    const registered = await op.server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: { redirect_uris: [CALLBACK], client_name: 'Self-registered RP', scope: 'openid' },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const { client_id: uid, client_secret: plainSecret } = registered.json();
    const client: Client = { application: (await op.server.deps.stores.applications.findByUid(uid))!, plainSecret };
    const { page, idToken, userinfo } = await consentedFlow(op, client, { claims: BEYOND_OPENID });
    expect(page).not.toContain('See your email address');
    expect(userinfo).toEqual({ sub: idToken.sub });
    expect(idToken).not.toHaveProperty('email');
  });
});
