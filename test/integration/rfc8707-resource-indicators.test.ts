import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceRecord } from '../../src/oauth/store.js';
import { createClient, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { CALLBACK, openIdServer } from '../helpers/openid.js';
import { basic, introspectRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { locationParameters } from '../helpers/end-user.js';

// RFC 8707 resource indicators: the audience of a token is what the client named, checked against the registered
// resources and the scopes each accepts; a token request may narrow it (section 2.2), never widen it.

const API_A = 'https://api-a.example.com';
const API_B = 'https://api-b.example.com/v1';

describe(`resource indicators, RFC 8707 (${backend})`, () => {
  let server: TestServer;
  let client: Awaited<ReturnType<typeof createClient>>;
  let apiA: Awaited<ReturnType<typeof createClient>>;
  let agent: UserAgent;
  let resourceA: ResourceRecord;
  beforeAll(async () => {
    server = await openIdServer({
      config: {
        optionalScopes: ['write', 'admin'],
        grantFlows: ['authorization_code', 'client_credentials', 'refresh_token'],
        introspection: { allow: [{ rule: 'tokenApplication' }, { rule: 'audience' }] },
      },
    });
    client = await createClient(server.deps);
    apiA = await createClient(server.deps, { name: 'API A' });
    const common = { name: '', tokenFormat: 'opaque' as const, accessTokenLifetime: null };
    resourceA = await server.deps.stores.resources.create({
      ...common,
      uri: API_A,
      scopes: ['read', 'write'],
      serverClientId: apiA.application.uid,
    });
    await server.deps.stores.resources.create({ ...common, uri: API_B, scopes: ['read'], serverClientId: null, accessTokenLifetime: 600 });
    await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const clientCredentials = (resources: string[], scope = 'read') =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(client.application.uid, client.plainSecret!) },
      payload: [
        `grant_type=client_credentials`,
        `scope=${encodeURIComponent(scope)}`,
        ...resources.map((uri) => `resource=${encodeURIComponent(uri)}`),
      ].join('&'),
    });
  const introspect = async (token: string, as = client) =>
    (await introspectRequest(server.app, { token }, basic(as.application.uid, as.plainSecret!))).json();

  it('section 2: one resource makes the audience; introspection answers aud', async () => {
    const response = await clientCredentials([API_A]);
    expect(response.statusCode).toBe(200);
    expect(await introspect(response.json().access_token)).toMatchObject({ active: true, aud: API_A, scope: 'read' });
  });

  it('section 2: several resources (the parameter repeated) make an array audience, and the shortest lifetime', async () => {
    const response = await clientCredentials([API_A, API_B]);
    expect(response.statusCode).toBe(200);
    expect(response.json().expires_in).toBe(600);
    expect((await introspect(response.json().access_token)).aud).toEqual([API_A, API_B]);
    // A resource without a lifetime of its own counts with the server's: naming a day-long one beside it stretches nothing.
    const dayLong = 'https://day-long.example.com';
    await server.deps.stores.resources.create({
      name: '',
      tokenFormat: 'opaque',
      uri: dayLong,
      scopes: ['read'],
      serverClientId: null,
      accessTokenLifetime: 86_400,
    });
    expect((await clientCredentials([dayLong])).json().expires_in).toBe(86_400);
    expect((await clientCredentials([API_A, dayLong])).json().expires_in).toBe(server.config.accessTokenExpiresIn);
  });

  it('without resource, behaviour is exactly as before: no aud', async () => {
    const response = await clientCredentials([]);
    const body = await introspect(response.json().access_token);
    expect(body.active).toBe(true);
    expect(body).not.toHaveProperty('aud');
    expect(response.json().expires_in).toBe(server.config.accessTokenExpiresIn);
  });

  it('section 2: an unregistered, relative or fragment resource, or a scope it does not accept, is invalid_target', async () => {
    const cases: Array<[string[], string, string]> = [
      [['https://unknown.example.com'], 'read', 'The resource https://unknown.example.com is not registered.'],
      [['/relative'], 'read', 'The resource must be an absolute URI without a fragment.'],
      [[`${API_A}#frag`], 'read', 'The resource must be an absolute URI without a fragment.'],
      [[API_B], 'write', 'The scope write is not accepted by the requested resources.'],
      [[API_A], 'read admin', 'The scope admin is not accepted by the requested resources.'],
    ];
    for (const [resources, scope, description] of cases) {
      const response = await clientCredentials(resources, scope);
      expect({ status: response.statusCode, body: response.json() }, description).toEqual({
        status: 400,
        body: { error: 'invalid_target', error_description: description },
      });
    }
  });

  it('the audience rule: the API a token is meant for may introspect it; another client sees it inactive', async () => {
    const token = (await clientCredentials([API_A])).json().access_token;
    expect(await introspect(token, apiA)).toMatchObject({ active: true, aud: API_A });
    const stranger = await createClient(server.deps);
    expect(await introspect(token, stranger)).toEqual({ active: false });
    const unrestricted = (await clientCredentials([])).json().access_token;
    expect(await introspect(unrestricted, apiA)).toEqual({ active: false });
  });

  describe('section 2.1: at the authorization endpoint', () => {
    const code = async (resources: string[], scope = 'read write') => {
      const query: Record<string, string> = {
        client_id: client.application.uid,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope,
        state: 's',
      };
      const url = `/oauth/authorize?${new URLSearchParams(query)}${resources.map((uri) => `&resource=${encodeURIComponent(uri)}`).join('')}`;
      const page = await agent.request({ method: 'GET', url });
      return page;
    };
    /** A token request of the client, each resource its own parameter (RFC 8707 section 2). */
    const tokenPost = (fields: string[], resources: string[]) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(client.application.uid, client.plainSecret!) },
        payload: [...fields, ...resources.map((uri) => `resource=${encodeURIComponent(uri)}`)].join('&'),
      });
    const exchange = (codeValue: string, resources: string[] = []) =>
      tokenPost([`grant_type=authorization_code`, `code=${codeValue}`, `redirect_uri=${encodeURIComponent(CALLBACK)}`], resources);
    const approved = async (resources: string[], scope = 'read') => {
      const page = await code(resources, scope);
      // Consent is skipped when a live token has these scopes for exactly these resources.
      if (page.statusCode === 302) return locationParameters(page).get('code')!;
      expect(page.statusCode, String(page.headers.location)).toBe(200);
      expect(page.body).toContain(resources[0] ?? '');
      const { hiddenFields } = await import('../helpers/end-user.js');
      const fields = hiddenFields(page.body);
      const body = [...Object.entries(fields).filter(([name]) => name !== 'resource'), ...resources.map((uri) => ['resource', uri])]
        .map(([name, value]) => `${name}=${encodeURIComponent(value!)}`)
        .join('&');
      const redirect = await agent.request({
        method: 'POST',
        url: '/oauth/authorize',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: body,
      });
      return locationParameters(redirect).get('code')!;
    };

    it('consent given for one resource is not consent for another: the screen is shown again', async () => {
      await exchange(await approved([API_A]));
      const again = await code([API_A], 'read');
      expect(again.statusCode).toBe(302);
      const other = await code([API_B], 'read');
      expect(other.statusCode).toBe(200);
      expect(other.body).toContain(API_B);
    });

    it('an unregistered resource is invalid_target, redirected to the client with state', async () => {
      const response = await code(['https://unknown.example.com']);
      expect(response.statusCode).toBe(302);
      expect(Object.fromEntries(locationParameters(response))).toMatchObject({ error: 'invalid_target', state: 's' });
    });

    it('the consent screen names the resources; the code carries them to the token', async () => {
      const value = await approved([API_A, API_B]);
      const response = await exchange(value);
      expect(response.statusCode).toBe(200);
      expect((await introspect(response.json().access_token)).aud).toEqual([API_A, API_B]);
    });

    it('section 2.2: the code exchange may narrow the audience, never widen it', async () => {
      const narrowed = await exchange(await approved([API_A, API_B]), [API_B]);
      expect(narrowed.statusCode).toBe(200);
      expect(await introspect(narrowed.json().access_token)).toMatchObject({ aud: API_B, scope: 'read' });
      const widened = await exchange(await approved([API_B]), [API_A]);
      expect(widened.json()).toEqual({ error: 'invalid_target', error_description: `The resource ${API_A} was not granted.` });
    });

    const refresh = (resources: string[], token: string) => tokenPost([`grant_type=refresh_token`, `refresh_token=${token}`], resources);

    it('section 2.2: a refresh may narrow the audience (and the scopes to what is left), never widen it', async () => {
      const first = await exchange(await approved([API_A, API_B], 'read write'));
      const narrowed = await refresh([API_B], first.json().refresh_token);
      expect(narrowed.statusCode).toBe(200);
      expect(narrowed.json().scope).toBe('read');
      expect(await introspect(narrowed.json().access_token)).toMatchObject({ aud: API_B, scope: 'read' });
      const widened = await refresh([API_A], narrowed.json().refresh_token);
      expect(widened.json().error).toBe('invalid_target');
      const kept = await refresh([], narrowed.json().refresh_token);
      expect((await introspect(kept.json().access_token)).aud).toBe(API_B);
      expect(resourceA.uri).toBe(API_A);
    });

    it('a grant without resources names none: a code exchange or a refresh naming one is invalid_target, no token for it', async () => {
      const notGranted = { error: 'invalid_target', error_description: `The resource ${API_A} was not granted.` };
      const atExchange = await exchange(await approved([]), [API_A]);
      expect(atExchange.json()).toEqual(notGranted);
      const first = await exchange(await approved([]));
      expect(first.statusCode, first.body).toBe(200);
      const atRefresh = await refresh([API_A], first.json().refresh_token);
      expect(atRefresh.json()).toEqual(notGranted);
      // The refused refresh spent nothing: the grant goes on, still without an audience.
      const kept = await refresh([], first.json().refresh_token);
      expect(kept.statusCode, kept.body).toBe(200);
      expect(await introspect(kept.json().access_token)).not.toHaveProperty('aud');
    });

    it('a resource deleted since the grant: a refresh that would keep it is invalid_target, one naming the rest works', async () => {
      const gone = await server.deps.stores.resources.create({
        name: '',
        tokenFormat: 'opaque',
        accessTokenLifetime: null,
        uri: 'https://gone.example.com',
        scopes: ['read'],
        serverClientId: null,
      });
      const first = await exchange(await approved([API_A, gone.uri]));
      expect(first.statusCode).toBe(200);
      await server.deps.stores.resources.delete(gone.id);
      expect((await refresh([], first.json().refresh_token)).json()).toEqual({
        error: 'invalid_target',
        error_description:
          'The resource https://gone.example.com this grant was issued for is no longer registered: name the resources still wanted in the resource parameter, or authorize again.',
      });
      const rest = await refresh([API_A], first.json().refresh_token);
      expect(rest.statusCode, rest.body).toBe(200);
      expect((await introspect(rest.json().access_token)).aud).toBe(API_A);
    });

    it('a resource named twice at the code exchange is one member of the audience', async () => {
      const response = await exchange(await approved([API_A]), [API_A, API_A]);
      expect((await introspect(response.json().access_token)).aud).toBe(API_A);
    });

    it('the audience rule shows the API its access tokens, not the refresh tokens of the same grant (RFC 6749 1.5)', async () => {
      const pair = (await exchange(await approved([API_A]))).json();
      expect(await introspect(pair.access_token, apiA)).toMatchObject({ active: true, aud: API_A });
      expect(await introspect(pair.refresh_token, apiA)).toEqual({ active: false });
      expect(await introspect(pair.refresh_token)).toMatchObject({ active: true, token_type: 'refresh_token' });
    });
  });
});
