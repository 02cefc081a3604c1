import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import {
  authorizeUrl,
  countRows,
  createClient,
  createUser,
  hiddenFields,
  liveToken,
  locationParameters,
  signedIn,
  userAgent,
  type UserAgent,
} from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

const CALLBACK = 'https://client.example.com/callback';
const VERIFIER = 'a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789';

describe(`GET and POST /oauth/authorize: consent, approval and delivery (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let publicClient: ApplicationRecord;
  let agent: UserAgent;
  let aliceId: number;

  beforeAll(async () => {
    server = await buildTestServer({ config: { optionalScopes: ['write'], scopeDescriptions: { read: 'Read your data' } } });
    aliceId = (await createUser(server.deps, 'alice')).id;
    client = (await createClient(server.deps, { name: 'Amazing Client App' })).application;
    publicClient = (await createClient(server.deps, { name: 'Public App', confidential: false })).application;
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const consent = (parameters: Record<string, string> = {}) =>
    agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code', ...parameters }),
    });
  const submit = (fields: Record<string, string>) =>
    agent.request({ method: 'POST', url: '/oauth/authorize', headers: FORM, payload: form(fields) });

  it('GET shows the consent screen: application name, scope descriptions, Authorize and Deny with the hidden fields of the request', async () => {
    const grantsBefore = await countRows(server, 'oauth_access_grants');
    const page = await consent({ scope: 'read write', state: 'xyz' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).toContain('<h1>Authorization required</h1>');
    expect(page.body).toContain('Authorize <strong class="text-info">Amazing Client App</strong> to use your account?');
    expect(page.body).toMatch(/<div id="oauth-permissions">[\s\S]*<li>Read your data<\/li>[\s\S]*<li>write<\/li>/);
    const approve = hiddenFields(page.body, 0);
    expect(approve).toEqual({
      _csrf: expect.any(String),
      client_id: client.uid,
      redirect_uri: CALLBACK,
      state: 'xyz',
      response_type: 'code',
      response_mode: 'query',
      scope: 'read write',
      code_challenge: '',
      code_challenge_method: '',
      // The page's own id: its answer, approval or denial, is used up on the server (consent-ticket.ts).
      consent_page: expect.stringMatching(/^[\w-]{16}$/),
    });
    expect(hiddenFields(page.body, 1)).toEqual({ ...approve, _method: 'delete' });
    expect(page.body).toMatch(/<button type="submit">Authorize<\/button>/);
    expect(page.body).toMatch(/<button type="submit" class="secondary">Deny<\/button>/);
    expect(await countRows(server, 'oauth_access_grants')).toBe(grantsBefore);
  });

  it('a request too long to come back to after signing in is answered to the client at once (not lost at /login)', async () => {
    const anonymous = userAgent(server.app);
    const parameters = { response_type: 'code', client_id: client.uid, redirect_uri: CALLBACK, scope: 'read' };
    const fits = await anonymous.request({ method: 'GET', url: authorizeUrl({ ...parameters, state: 'x'.repeat(1500) }) });
    expect(fits.headers.location).toBe('/login');
    const response = await anonymous.request({ method: 'GET', url: authorizeUrl({ ...parameters, state: 'x'.repeat(3000) }) });
    expect(response.statusCode).toBe(302);
    const redirected = locationParameters(response);
    expect(String(response.headers.location).startsWith(`${CALLBACK}?`)).toBe(true);
    expect(redirected.get('state')).toBe('x'.repeat(3000));
    expect(redirected.get('error')).toBe('invalid_request');
    expect(redirected.get('error_description')).toMatch(
      /^The authorization request is too long to come back to after signing in \(\d+ characters, at most 2048\): push it \(RFC 9126\) and send its request_uri\.$/,
    );
  });

  it('POST (Authorize) issues a code and redirects with 303, code, state and iss (RFC 9207)', async () => {
    const page = await consent({ state: 'return-me' });
    const response = await submit(hiddenFields(page.body, 0));
    expect(response.statusCode).toBe(303);
    expect(response.headers['cache-control']).toBe('no-store');
    const location = String(response.headers.location);
    expect(location.startsWith(`${CALLBACK}?`)).toBe(true);
    const parameters = locationParameters(response);
    expect([...parameters.keys()]).toEqual(['code', 'state', 'iss']);
    expect(parameters.get('state')).toBe('return-me');
    expect(parameters.get('iss')).toBe(server.config.baseUrl);
    const code = parameters.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // SPEC 4: stored only as its SHA-256 hash, with the requested redirect URI and default scopes.
    const grant = await server.deps.stores.accessGrants.findByToken(sha256Hex(code));
    expect(grant).toMatchObject({
      applicationId: client.id,
      resourceOwnerId: aliceId,
      redirectUri: CALLBACK,
      scopes: ['read'],
      expiresIn: 600,
    });
    expect(await server.deps.stores.accessGrants.findByToken(code)).toBeNull();
  });

  it('POST stores the PKCE challenge and method with the code', async () => {
    const challenge = s256Challenge(VERIFIER);
    const page = await consent({ code_challenge: challenge, code_challenge_method: 'S256' });
    const response = await submit(hiddenFields(page.body, 0));
    const grant = await server.deps.stores.accessGrants.findByToken(sha256Hex(locationParameters(response).get('code')!));
    expect(grant).toMatchObject({ codeChallenge: challenge, codeChallengeMethod: 'S256' });
    expect(locationParameters(response).has('code_challenge')).toBe(false);
  });

  it('POST without a valid CSRF token is refused with 403 and issues no code', async () => {
    const fields = hiddenFields((await consent()).body, 0);
    const before = await countRows(server, 'oauth_access_grants');
    for (const forged of [
      { ...fields, _csrf: 'forged' },
      Object.fromEntries(Object.entries(fields).filter(([name]) => name !== '_csrf')),
    ]) {
      const response = await submit(forged);
      expect(response.statusCode).toBe(403);
      expect(response.headers.location).toBeUndefined();
    }
    // Another session's token is not this session's.
    const other = await signedIn(server.app, 'alice');
    const stolen = await other.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: FORM,
      payload: form({ ...fields, _csrf: fields._csrf! }),
    });
    expect(stolen.statusCode).toBe(403);
    expect(await countRows(server, 'oauth_access_grants')).toBe(before);
  });

  it('POST validates the posted request again in full: a widened scope is invalid_scope, redirected', async () => {
    const fields = hiddenFields((await consent()).body, 0);
    const response = await submit({ ...fields, scope: 'read admin', state: 's1' });
    expect(response.statusCode).toBe(303);
    expect(Object.fromEntries(locationParameters(response))).toEqual({
      error: 'invalid_scope',
      error_description: 'The requested scope is invalid, unknown, or malformed.',
      state: 's1',
      iss: server.config.baseUrl,
    });
  });

  it('POST validates the posted request again in full: a changed redirect URI is an error page, never a redirect', async () => {
    const fields = hiddenFields((await consent()).body, 0);
    const before = await countRows(server, 'oauth_access_grants');
    const response = await submit({ ...fields, redirect_uri: 'https://evil.example/callback' });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('The requested redirect URI is malformed or doesn&#39;t match the client redirect URI.');
    expect(await countRows(server, 'oauth_access_grants')).toBe(before);
  });

  it('POST with _method=delete (Deny) redirects with 303 and error=access_denied, state and iss; no code', async () => {
    const page = await consent({ state: 'return-this' });
    const before = await countRows(server, 'oauth_access_grants');
    const response = await submit(hiddenFields(page.body, 1));
    expect(response.statusCode).toBe(303);
    expect(String(response.headers.location).startsWith(`${CALLBACK}?`)).toBe(true);
    expect(Object.fromEntries(locationParameters(response))).toEqual({
      error: 'access_denied',
      error_description: 'The resource owner or authorization server denied the request.',
      state: 'return-this',
      iss: server.config.baseUrl,
    });
    expect(await countRows(server, 'oauth_access_grants')).toBe(before);
  });

  it('DELETE /oauth/authorize denies like the form, with the CSRF token in X-CSRF-Token', async () => {
    const { _csrf, ...fields } = hiddenFields((await consent()).body, 0);
    const response = await agent.request({
      method: 'DELETE',
      url: '/oauth/authorize',
      headers: { ...FORM, 'x-csrf-token': _csrf! },
      payload: form(fields),
    });
    expect(response.statusCode).toBe(303);
    expect(locationParameters(response).get('error')).toBe('access_denied');
    const forged = await agent.request({ method: 'DELETE', url: '/oauth/authorize', headers: FORM, payload: form(fields) });
    expect(forged.statusCode).toBe(403);
  });

  it('deny verifies client and redirect URI first: an unregistered URI is an error page (SPEC 8, no open redirect)', async () => {
    const fields = hiddenFields((await consent()).body, 1);
    const changes: Array<Record<string, string>> = [{ redirect_uri: 'https://evil.example/' }, { client_id: 'unknown' }, { client_id: '' }];
    for (const change of changes) {
      const response = await submit({ ...fields, ...change });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.headers.location).toBeUndefined();
    }
  });

  it('deny with an unknown or missing response_type answers an error, not a 500', async () => {
    const fields = hiddenFields((await consent()).body, 1);
    const unknown = await submit({ ...fields, response_type: 'password' });
    expect(unknown.statusCode).toBe(303);
    expect(locationParameters(unknown).get('error')).toBe('unsupported_response_type');
    const missing = await submit({ ...fields, response_type: '' });
    expect(missing.statusCode).toBe(303);
    expect(locationParameters(missing).get('error_description')).toBe('Missing required parameter: response_type.');
  });

  it('response_mode=fragment puts the code in the fragment', async () => {
    const response = await submit(hiddenFields((await consent({ response_mode: 'fragment', state: 's' })).body, 0));
    const location = String(response.headers.location);
    expect(location.startsWith(`${CALLBACK}#code=`)).toBe(true);
    expect(locationParameters(response, 'hash').get('state')).toBe('s');
  });

  it('response_mode=form_post answers 200 with an auto-submitting form to the redirect URI (reference 15.4)', async () => {
    const page = await consent({ response_mode: 'form_post', state: 'st' });
    expect(hiddenFields(page.body, 0).response_mode).toBe('form_post');
    const response = await submit(hiddenFields(page.body, 0));
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).toContain('<h1>Submit this form</h1>');
    expect(response.body).toContain(`<form name="redirect_form" id="redirect_form" method="post" action="${CALLBACK}">`);
    const fields = hiddenFields(response.body, 0);
    expect(Object.keys(fields)).toEqual(['code', 'state', 'iss']);
    expect(fields.state).toBe('st');
    expect(response.body).toContain('<script src="/assets/form-post.js"></script>');
    expect(response.body).toContain('<button type="submit">Continue</button>');
    expect(response.body).not.toMatch(/<script>/);
    const script = await server.app.inject({ method: 'GET', url: '/assets/form-post.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('text/javascript');
    expect(script.body).toContain('redirect_form');
  });

  it('form_post errors are posted too (reference 4.5)', async () => {
    const fields = hiddenFields((await consent({ response_mode: 'form_post' })).body, 1);
    const response = await submit(fields);
    expect(response.statusCode).toBe(200);
    expect(hiddenFields(response.body, 0)).toMatchObject({ error: 'access_denied', iss: server.config.baseUrl });
  });

  it('a state with CR LF is percent-encoded in the Location, never a header injection', async () => {
    const response = await consent({ scope: 'admin', state: 'x\r\nSet-Cookie: evil=1' });
    expect(response.statusCode).toBe(302);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(String(response.headers.location)).toContain('state=x%0D%0ASet-Cookie%3A+evil%3D1');
    expect(locationParameters(response).get('state')).toBe('x\r\nSet-Cookie: evil=1');
  });

  it('the application name is escaped on the consent page', async () => {
    const xss = (await createClient(server.deps, { name: `<div id='xss'>XSS</div>` })).application;
    const page = await agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: xss.uid, redirect_uri: CALLBACK, response_type: 'code' }),
    });
    expect(page.body).not.toContain("<div id='xss'>");
    expect(page.body).toContain('&lt;div id=&#39;xss&#39;&gt;XSS&lt;/div&gt;');
  });

  it('a public client shows the consent screen even with a live token of the same scopes (never skipped)', async () => {
    await server.deps.stores.accessTokens.create(liveToken(publicClient.id, aliceId, ['read'], server.deps.now()));
    const challenge = s256Challenge(VERIFIER);
    const page = await agent.request({
      method: 'GET',
      url: authorizeUrl({
        client_id: publicClient.uid,
        redirect_uri: CALLBACK,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Authorization required');
  });

  it("every end-user page sends X-Frame-Options: DENY and CSP frame-ancestors 'none'", async () => {
    const formPost = await submit(hiddenFields((await consent({ response_mode: 'form_post' })).body, 0));
    const pages = [
      await agent.request({ method: 'GET', url: '/login' }),
      await agent.request({ method: 'GET', url: '/logout' }),
      await consent(),
      await agent.request({ method: 'GET', url: authorizeUrl({ client_id: 'unknown' }) }),
      formPost,
      await agent.request({ method: 'GET', url: '/oauth/authorize/native?code=abc' }),
      await agent.request({ method: 'GET', url: '/oauth/authorized_applications' }),
      await userAgent(server.app).request({ method: 'GET', url: '/login' }),
    ];
    for (const page of pages) {
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    }
  });

  it('an anonymous GET goes to /login and comes back; an anonymous POST gets 401 and no code', async () => {
    const anonymous = userAgent(server.app);
    const url = authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'code' });
    const response = await anonymous.request({ method: 'GET', url });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/login');
    const post = await anonymous.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: FORM,
      payload: form({ client_id: client.uid }),
    });
    expect(post.statusCode).toBe(401);
    expect(post.headers.location).toBeUndefined();
  });
});
