import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, createClient, createUser, hiddenFields, locationParameters, PASSWORD, signedIn } from '../helpers/end-user.js';
import { claimsRequestJson, parseClaimsRequest } from '../../src/oauth/openid/claims-request.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer } from '../helpers/test-server.js';
import {
  CALLBACK,
  CLAIMS,
  codeFrom,
  exchange,
  openIdProvider,
  redirectedError,
  signInWhenAsked,
  suiteCodeFlow,
  suiteRequest,
  type Client,
  type OpenIdProvider,
} from '../conformance/support.js';

// OpenID Connect Core 1.0 section 5.5, the claims request parameter, beyond what oidcc-claims-essential covers: what is
// invalid_request (5.5: a JSON object of userinfo and id_token members, each claim null or an object), what is ignored
// (members and claims not understood), value/values for sub (5.5.1) and acr (5.5.1.1), and consent to claims asked for
// by name (the consent screen names them; consent given before is reused only when it named them).

const claims = (request: unknown) => (typeof request === 'string' ? request : JSON.stringify(request));

describe(`OpenID Connect Core 1.0 section 5.5: the claims request parameter (${backend})`, () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  const refusal = async (parameter: string) => {
    const request = suiteRequest(op.client, { claims: parameter });
    const redirect = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    const error = redirectedError(redirect, request);
    return { error, description: locationParameters(redirect).get('error_description') };
  };

  it('OpenID Connect Core 1.0 section 5.5: a claims parameter that is not a JSON object is invalid_request, redirected with the state', async () => {
    expect(await refusal('{"userinfo":')).toEqual({
      error: 'invalid_request',
      description: 'The claims parameter must be a JSON object (OpenID Connect Core 5.5); it is not valid JSON.',
    });
    for (const parameter of ['[]', '"userinfo"', '42', 'null']) {
      expect(await refusal(parameter), parameter).toEqual({
        error: 'invalid_request',
        description: 'The claims parameter must be a JSON object (OpenID Connect Core 5.5).',
      });
    }
  });

  it('OpenID Connect Core 1.0 section 5.5: a member or a claim request of the wrong shape is invalid_request naming it', async () => {
    const cases: Array<[unknown, string]> = [
      [{ userinfo: [] }, "The claims parameter's userinfo member must be a JSON object."],
      [{ id_token: 'email' }, "The claims parameter's id_token member must be a JSON object."],
      [{ userinfo: { email: true } }, 'The claims parameter\'s request for userinfo "email" must be null or a JSON object.'],
      [
        { userinfo: { email: { essential: 'yes' } } },
        'The claims parameter\'s request for userinfo "email": essential must be true or false.',
      ],
      [
        { id_token: { email: { values: 'a@example.com' } } },
        'The claims parameter\'s request for id_token "email": values must be a JSON array.',
      ],
      [{ id_token: { sub: { value: 42 } } }, 'The claims parameter\'s request for id_token "sub": its value must be a string.'],
    ];
    for (const [request, description] of cases) {
      expect(await refusal(claims(request)), claims(request)).toEqual({ error: 'invalid_request', description });
    }
    expect(await refusal('x'.repeat(4097))).toEqual({
      error: 'invalid_request',
      description: 'The claims parameter is too long (at most 4096 characters).',
    });
  });

  it('OpenID Connect Core 1.0 section 5.5: a claims parameter just under the limit, longer once stored, completes the consent form and is honoured', async () => {
    const names = ['name', 'given_name', 'family_name', 'nickname', 'email', 'phone_number', 'address', 'birthdate', 'locale'];
    const member = (size: number) => Object.fromEntries(names.map((name) => [name, { value: 'x'.repeat(size) }]));
    let size = 1;
    while (claims({ userinfo: member(size + 1), id_token: member(size + 1) }).length <= 4096) size += 1;
    const parameter = claims({ userinfo: member(size), id_token: member(size) });
    expect(claimsRequestJson(parseClaimsRequest(parameter)).length, 'value stored as values').toBeGreaterThan(4096);
    const request = suiteRequest(op.client, { claims: parameter, prompt: 'consent' });
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(page.statusCode).toBe(200);
    const code = codeFrom(await op.agent.post('/oauth/authorize', hiddenFields(page.body)), request);
    const { tokens, claims: idToken } = await exchange(op, code, { nonce: request.nonce });
    expect(idToken).toMatchObject({ email: CLAIMS.email, phone_number: CLAIMS.phoneNumber });
    const userinfo = await op.server.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.json()).toMatchObject({ name: CLAIMS.name, email: CLAIMS.email, phone_number: CLAIMS.phoneNumber });
  });

  it('OpenID Connect Core 1.0 section 5.5: members and claims it does not understand are ignored', async () => {
    const { tokens, claims: idToken } = await suiteCodeFlow(op, {
      claims: claims({ userinfo: { favourite_colour: { essential: true }, email: null }, id_token: { acr: null }, other: { x: 1 } }),
    });
    // Core 2: acr is the level the sign-in reached, there whether asked for or not (a password: the pwd value).
    expect(idToken.acr).toBe('urn:oauth-service:acr:pwd');
    const userinfo = await op.server.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.json()).toEqual({ sub: idToken.sub, email: 'alice@example.com' });
  });

  it('OpenID Connect Core 1.0 section 5.5.1: the signed-in user sub as the id_token sub value gets a code; another value sends them to sign in again (prompt=none: login_required)', async () => {
    const sub = op.user.subject;
    const { claims: idToken } = await suiteCodeFlow(op, { claims: claims({ id_token: { sub: { value: sub } } }) });
    expect(idToken.sub).toBe(sub);

    const other = claims({ id_token: { sub: { value: 'someone-else' } } });
    const silent = suiteRequest(op.client, { claims: other, prompt: 'none' });
    expect(redirectedError(await op.agent.request({ method: 'GET', url: authorizeUrl(silent) }), silent)).toBe('login_required');
    const interactive = await op.agent.request({ method: 'GET', url: authorizeUrl(suiteRequest(op.client, { claims: other })) });
    expect(interactive.statusCode).toBe(302);
    expect(interactive.headers.location).toBe('/login');
  });

  it('OpenID Connect Core 1.0 section 5.5.1: a sub value naming another user is answered for that user once they sign in, never for the first', async () => {
    const bob = await createUser(op.server.deps, 'bob');
    const request = suiteRequest(op.client, { claims: claims({ id_token: { sub: { values: ['nobody', bob.subject] } } }) });
    const agent = await op.signIn();
    const redirect = await agent.request({ method: 'GET', url: authorizeUrl(request) });
    // signInWhenAsked signs the suite's user in again: still not the one named, so the request fails (never a code).
    const again = await signInWhenAsked(op, agent, redirect);
    expect(redirectedError(again, request)).toBe('access_denied');

    const bobAgent = await signedIn(op.server.app, 'bob');
    const page = await bobAgent.request({ method: 'GET', url: authorizeUrl(request) });
    const code = codeFrom(await bobAgent.post('/oauth/authorize', hiddenFields(page.body)), request);
    const response = await exchange({ ...op, user: bob }, code, { nonce: request.nonce });
    expect(response.claims.sub).toBe(bob.subject);
  });

  it('OpenID Connect Core 1.0 section 5.5.1: a sign-in for the request that still is not the sub named ends it with access_denied, not another sign-in', async () => {
    const request = suiteRequest(op.client, { claims: claims({ id_token: { sub: { value: 'nobody' } } }) });
    const agent = await op.signIn();
    const first = await agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect([first.statusCode, first.headers.location]).toEqual([302, '/login']);
    const loggedIn = await agent.post('/login', { username: op.user.username, password: PASSWORD });
    expect(loggedIn.statusCode).toBe(303);
    const back = await agent.request({ method: 'GET', url: String(loggedIn.headers.location) });
    expect(redirectedError(back, request)).toBe('access_denied');
    expect(locationParameters(back).get('error_description')).toBe(
      'The user who signed in is not the one the sub of the claims parameter names (OpenID Connect Core 5.5.1).',
    );
    // The sign-in counted once: the same request later asks for a sign-in again.
    const later = await agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect([later.statusCode, later.headers.location]).toEqual([302, '/login']);
  });

  it('OpenID Connect Core 1.0 section 5.5.1: a consent form whose claims name another sub issues nothing (the hidden fields are not trusted)', async () => {
    const carol = await createUser(op.server.deps, 'carol');
    const agent = await signedIn(op.server.app, carol.username);
    const request = suiteRequest(op.client, { prompt: 'consent' });
    const page = await agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(page.statusCode).toBe(200);
    const forged = { ...hiddenFields(page.body), claims: claims({ id_token: { sub: { value: op.user.subject } } }) };
    const answer = await agent.post('/oauth/authorize', forged);
    // Not the request whose page was shown: the request again as a GET, which wants the sign-in of that sub.
    expect(answer.statusCode).toBe(303);
    const again = String(answer.headers.location);
    expect(again).toMatch(/^\/oauth\/authorize\?/);
    expect(again).not.toContain('code=');
    const asked = await agent.request({ method: 'GET', url: again });
    expect([asked.statusCode, asked.headers.location]).toEqual([302, '/login']);
  });

  it('OpenID Connect Core 1.0 section 5.5.1.1: an essential acr no sign-in here reaches is unmet_authentication_requirements; voluntary, the acr is what the sign-in reached', async () => {
    const essential = suiteRequest(op.client, {
      claims: claims({ id_token: { acr: { essential: true, values: ['urn:mace:incommon:iap:silver'] } } }),
    });
    const redirect = await op.agent.request({ method: 'GET', url: authorizeUrl(essential) });
    expect(redirectedError(redirect, essential)).toBe('unmet_authentication_requirements');
    expect(locationParameters(redirect).get('error_description')).toBe(
      'None of the essential acr values of the claims parameter can be met; a sign-in here reaches urn:oauth-service:acr:pwd, urn:oauth-service:acr:mfa, urn:oauth-service:acr:phr.',
    );
    const { claims: idToken } = await suiteCodeFlow(op, {
      claims: claims({ id_token: { acr: { values: ['urn:mace:incommon:iap:silver'] } } }),
    });
    expect(idToken.acr).toBe('urn:oauth-service:acr:pwd');
  });

  it('OpenID Connect Core 1.0 section 5.5: consent given before is reused only when it named the claims asked for by name', async () => {
    const client: Client = await op.newClient({ name: 'Claims RP' });
    await suiteCodeFlow(op, {}, { client });
    const withClaims = suiteRequest(client, { claims: claims({ userinfo: { email: null } }) });
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(withClaims) });
    expect(page.statusCode, 'the consent screen, since email was never named').toBe(200);
    expect(page.body).toContain('<li>See your email address</li>');
    const code = codeFrom(await op.agent.post('/oauth/authorize', hiddenFields(page.body)), withClaims);
    await exchange(op, code, { client, nonce: withClaims.nonce });

    const again = suiteRequest(client, { claims: claims({ userinfo: { email: { essential: true } } }), prompt: 'none' });
    codeFrom(await op.agent.request({ method: 'GET', url: authorizeUrl(again) }), again);
    const more = suiteRequest(client, { claims: claims({ userinfo: { email: null, phone_number: null } }), prompt: 'none' });
    expect(redirectedError(await op.agent.request({ method: 'GET', url: authorizeUrl(more) }), more)).toBe('consent_required');
  });

  it('OpenID Connect Core 1.0 section 5.5: without openid in the scope, the claims parameter asks for nothing', async () => {
    const request = suiteRequest(op.client, { scope: 'profile', prompt: 'consent', claims: claims({ userinfo: { email: null } }) });
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('See your email address');
    expect(hiddenFields(page.body)).not.toHaveProperty('claims');
  });
});

describe(`the claims parameter with OpenID Connect off (${backend})`, () => {
  it('is an unknown parameter, ignored: even one that is not JSON gets a code', async () => {
    const server = await buildTestServer();
    try {
      await createUser(server.deps, 'alice');
      const { application } = await createClient(server.deps);
      const agent = await signedIn(server.app, 'alice');
      const request = { client_id: application.uid, redirect_uri: CALLBACK, response_type: 'code', state: 's', claims: '{not json' };
      const page = await agent.request({ method: 'GET', url: authorizeUrl(request) });
      expect(page.statusCode).toBe(200);
      const redirect = await agent.post('/oauth/authorize', hiddenFields(page.body));
      expect(locationParameters(redirect).get('code')).toEqual(expect.any(String));
    } finally {
      await server.close();
    }
  });
});
