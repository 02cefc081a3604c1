import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import {
  authorizeUrl,
  CALLBACK,
  countRows,
  createClient,
  createUser,
  hiddenFields,
  locationParameters,
  PASSWORD,
  signedIn,
  userAgent,
  type UserAgent,
} from '../helpers/end-user.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { basicAuth, FORM, form, type TestServer } from '../helpers/test-server.js';

// The consent form answers the page it came from (consent-ticket.ts): an approval posted without that page is the
// request again, as a GET, so what the GET asks first (a sign-in, the second step a client needs) cannot be skipped.
// And a pushed request's prompt=login or max_age is answered by the sign-in it asked for, not asked again and again.

const STRICT_CLIENT = 'strict-client';

describe(`the consent form answers its own page (${backend})`, () => {
  let server: TestServer;
  let client: { uid: string; secret: string };
  let alice: UserAgent;

  beforeAll(async () => {
    server = await openIdServer({ config: { authentication: { requireSecondFactor: [STRICT_CLIENT] } } });
    const made = await createClient(server.deps, { scopes: 'openid read' });
    client = { uid: made.application.uid, secret: made.plainSecret! };
    await createClient(server.deps, { scopes: 'openid' }, { uid: STRICT_CLIENT });
    await createUser(server.deps, 'alice');
    alice = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const request = (clientId: string, extra: Record<string, string> = {}) => ({
    client_id: clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid',
    state: 'xyz',
    nonce: 'n-1',
    code_challenge: s256Challenge('v'.repeat(43)),
    code_challenge_method: 'S256',
    ...extra,
  });
  const approve = (agent: UserAgent, fields: Record<string, string>) => agent.post('/oauth/authorize', fields, '/account');
  const codeOf = (response: LightMyRequestResponse) => locationParameters(response).get('code');

  it('a made-up approval for a client that needs the second step gets no code: the GET sends the password-only browser to sign in', async () => {
    const grants = await countRows(server, 'oauth_access_grants');
    const made = await approve(alice, request(STRICT_CLIENT));
    expect(made.statusCode).toBe(303);
    const again = String(made.headers.location);
    const asGet = new URL(again, 'http://localhost');
    expect(asGet.pathname).toBe('/oauth/authorize');
    expect(Object.fromEntries(asGet.searchParams)).toMatchObject(request(STRICT_CLIENT));
    const asked = await alice.request({ method: 'GET', url: again });
    expect([asked.statusCode, asked.headers.location]).toEqual([302, '/login']);
    expect(await countRows(server, 'oauth_access_grants')).toBe(grants);
  });

  it('the form of a page shown approves once; posted again it is the request again, which shows the page again', async () => {
    const page = await alice.request({ method: 'GET', url: authorizeUrl(request(client.uid, { prompt: 'consent' })) });
    expect(page.statusCode).toBe(200);
    const fields = hiddenFields(page.body);
    const approved = await approve(alice, fields);
    expect(approved.statusCode).toBe(303);
    expect(codeOf(approved)).toBeTruthy();
    const twice = await approve(alice, fields);
    expect(twice.statusCode).toBe(303);
    expect(codeOf(twice)).toBeNull();
    expect(String(twice.headers.location)).toMatch(/^\/oauth\/authorize\?/);
  });

  it('a page denied is answered: its approval afterwards (another tab, the back button) asks again, no code (a race audit)', async () => {
    const page = await alice.request({ method: 'GET', url: authorizeUrl(request(client.uid, { prompt: 'consent' })) });
    const fields = hiddenFields(page.body);
    expect(page.body.match(new RegExp(`name="consent_page" value="${fields.consent_page}"`, 'g'))).toHaveLength(2);
    const denied = await alice.post('/oauth/authorize', { ...fields, _method: 'delete' }, '/account');
    expect([denied.statusCode, locationParameters(denied).get('error')]).toEqual([303, 'access_denied']);
    const approvedAfter = await approve(alice, fields);
    expect(approvedAfter.statusCode).toBe(303);
    expect(codeOf(approvedAfter)).toBeNull();
    expect(String(approvedAfter.headers.location)).toMatch(/^\/oauth\/authorize\?/);
  });

  it('a copy of the session cookie from before the approval, or the form posted four times at once, gives one code (a race audit)', async () => {
    const withCookies = (cookies: Map<string, string>) => {
      const copy = userAgent(server.app);
      for (const [name, value] of cookies) copy.cookies.set(name, value);
      return copy;
    };
    const page = await alice.request({ method: 'GET', url: authorizeUrl(request(client.uid, { prompt: 'consent', state: 'copy' })) });
    const fields = hiddenFields(page.body);
    const before = new Map(alice.cookies);
    expect(codeOf(await approve(alice, fields))).toBeTruthy();
    const replayed = await approve(withCookies(before), fields);
    expect(replayed.statusCode).toBe(303);
    expect(codeOf(replayed)).toBeNull();

    const again = await alice.request({ method: 'GET', url: authorizeUrl(request(client.uid, { prompt: 'consent', state: 'burst' })) });
    const burst = await Promise.all(Array.from({ length: 4 }, () => approve(withCookies(alice.cookies), hiddenFields(again.body))));
    expect(burst.map(codeOf).filter((code) => code !== null)).toHaveLength(1);
  });

  it('two pages open side by side: each form approves its own request', async () => {
    const pages: Array<Record<string, string>> = [];
    for (const state of ['one', 'two']) {
      const page = await alice.request({ method: 'GET', url: authorizeUrl(request(client.uid, { prompt: 'consent', state })) });
      pages.push(hiddenFields(page.body));
    }
    // The first page's form answered after the second page was shown.
    for (const fields of pages) {
      const approved = await approve(alice, fields);
      expect([approved.statusCode, locationParameters(approved).get('state')]).toEqual([303, fields.state]);
      expect(codeOf(approved)).toBeTruthy();
    }
  });

  it('a form changed after its page was shown (another scope) approves nothing the user did not see', async () => {
    const page = await alice.request({ method: 'GET', url: authorizeUrl(request(client.uid, { prompt: 'consent' })) });
    const changed = await approve(alice, { ...hiddenFields(page.body), scope: 'openid read' });
    expect(codeOf(changed)).toBeNull();
    const shown = await alice.request({ method: 'GET', url: String(changed.headers.location) });
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('name="scope" value="openid read"');
  });

  describe('a pushed request (RFC 9126) that asks for a new sign-in', () => {
    const push = async (extra: Record<string, string>) => {
      const pushed = await server.app.inject({
        method: 'POST',
        url: '/oauth/par',
        headers: { ...FORM, authorization: basicAuth(client.uid, client.secret) },
        payload: form({ ...request(client.uid, extra), client_id: client.uid }),
      });
      expect(pushed.statusCode, pushed.body).toBe(201);
      return authorizeUrl({ client_id: client.uid, request_uri: pushed.json<{ request_uri: string }>().request_uri });
    };

    it.each<Record<string, string>>([{ prompt: 'login' }, { max_age: '0' }])(
      '%j: one sign-in, then the consent page (no loop), whose form approves',
      async (extra) => {
        const agent = await signedIn(server.app, 'alice');
        const url = await push(extra);
        const asked = await agent.request({ method: 'GET', url });
        expect([asked.statusCode, asked.headers.location]).toEqual([302, '/login']);
        const signIn = await agent.post('/login', { username: 'alice', password: PASSWORD });
        expect(signIn.headers.location).toBe(url);
        const page = await agent.request({ method: 'GET', url });
        expect(page.statusCode).toBe(200);
        expect(codeOf(await approve(agent, hiddenFields(page.body)))).toBeTruthy();
      },
    );

    it('its request_uri posted as a consent form without the sign-in it asks for gets no code', async () => {
      const agent = await signedIn(server.app, 'alice');
      const url = await push({ prompt: 'login' });
      const made = await approve(agent, Object.fromEntries(new URL(url, 'http://localhost').searchParams));
      expect([made.statusCode, codeOf(made)]).toEqual([303, null]);
      const asked = await agent.request({ method: 'GET', url: String(made.headers.location) });
      expect([asked.statusCode, asked.headers.location]).toEqual([302, '/login']);
    });
  });
});
