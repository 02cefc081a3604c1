import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import {
  authorizeUrl,
  CALLBACK,
  countRows,
  createClient,
  createUser,
  liveToken,
  locationParameters,
  signedIn,
  type UserAgent,
} from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

describe(`GET /oauth/authorize skips the consent screen when skipAuthorization allows (${backend})`, () => {
  let server: TestServer;
  let confidential: ApplicationRecord;
  let agent: UserAgent;
  let aliceId: number;
  let bobId: number;

  beforeAll(async () => {
    server = await buildTestServer({ config: { optionalScopes: ['write'], skipAuthorization: { clients: ['listed-client'] } } });
    aliceId = (await createUser(server.deps, 'alice')).id;
    bobId = (await createUser(server.deps, 'bob')).id;
    confidential = (await createClient(server.deps, { name: 'Confidential' })).application;
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const authorize = (application: ApplicationRecord, parameters: Record<string, string> = {}) =>
    agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: application.uid, redirect_uri: CALLBACK, response_type: 'code', ...parameters }),
    });
  const isConsent = (response: { statusCode: number; body: string }) =>
    response.statusCode === 200 && response.body.includes('Authorization required');

  it('a client listed in skipAuthorization.clients gets its code at once (302 with code, state, iss)', async () => {
    const listed = (await createClient(server.deps, { name: 'Listed' }, { uid: 'listed-client' })).application;
    const before = await countRows(server, 'oauth_access_grants');
    const response = await authorize(listed, { state: 'abc' });
    expect(response.statusCode).toBe(302);
    expect(String(response.headers.location).startsWith(`${CALLBACK}?code=`)).toBe(true);
    expect(locationParameters(response).get('state')).toBe('abc');
    expect(locationParameters(response).get('iss')).toBe(server.config.baseUrl);
    expect(await countRows(server, 'oauth_access_grants')).toBe(before + 1);
  });

  it('a skipped request is still validated: an invalid scope is redirected as invalid_scope, no code', async () => {
    const listed = (await server.deps.stores.applications.findByUid('listed-client'))!;
    const response = await authorize(listed, { scope: 'admin' });
    expect(response.statusCode).toBe(302);
    expect(locationParameters(response).get('error')).toBe('invalid_scope');
    expect(locationParameters(response).has('code')).toBe(false);
  });

  it('a confidential client holding a live token of this user with the same scopes skips consent (any order)', async () => {
    await server.deps.stores.accessTokens.create(liveToken(confidential.id, aliceId, ['write', 'read'], server.deps.now()));
    const response = await authorize(confidential, { scope: 'read write' });
    expect(response.statusCode).toBe(302);
    expect(locationParameters(response).has('code')).toBe(true);
  });

  it('different scopes, fewer or more, show the consent screen (reference 21.13)', async () => {
    expect(isConsent(await authorize(confidential, { scope: 'read' }))).toBe(true);
    expect(isConsent(await authorize(confidential, { scope: 'write' }))).toBe(true);
  });

  it('an expired matching token does not skip consent (SPEC 8: only a live one)', async () => {
    const app = (await createClient(server.deps, { name: 'Expired' })).application;
    const longAgo = new Date(server.deps.now().getTime() - 3 * 3600 * 1000);
    await server.deps.stores.accessTokens.create(liveToken(app.id, aliceId, ['read'], longAgo, 7200));
    expect(isConsent(await authorize(app))).toBe(true);
  });

  it('a revoked matching token does not skip consent', async () => {
    const app = (await createClient(server.deps, { name: 'Revoked' })).application;
    const token = await server.deps.stores.accessTokens.create(liveToken(app.id, aliceId, ['read'], server.deps.now()));
    await server.deps.stores.accessTokens.revoke(token.id, server.deps.now());
    expect(isConsent(await authorize(app))).toBe(true);
  });

  it('the matching token counts behind many newer ones of other scopes, among the newest 100 live tokens', async () => {
    const app = (await createClient(server.deps, { name: 'Many tokens' })).application;
    const minutesAgo = (minutes: number) => new Date(server.deps.now().getTime() - minutes * 60_000);
    const create = (scopes: string[], createdAt: Date) =>
      server.deps.stores.accessTokens.create(liveToken(app.id, aliceId, scopes, createdAt));
    await create(['read'], minutesAgo(30));
    for (let i = 0; i < 12; i += 1) await create(['write'], minutesAgo(20 - i));
    // Twelve newer tokens, all of other scopes: the search goes on past them to the read one.
    expect((await authorize(app, { scope: 'read' })).statusCode).toBe(302);
    expect(isConsent(await authorize(app, { scope: 'read write' }))).toBe(true);
    // The search reads the newest 100 live tokens: past them the read one no longer counts.
    for (let i = 0; i < 100; i += 1) await create(['write'], minutesAgo(10));
    expect(isConsent(await authorize(app, { scope: 'read' }))).toBe(true);
    expect((await authorize(app, { scope: 'write' })).statusCode).toBe(302);
  });

  it("another user's token does not skip this user's consent", async () => {
    const app = (await createClient(server.deps, { name: 'Bobs' })).application;
    await server.deps.stores.accessTokens.create(liveToken(app.id, bobId, ['read'], server.deps.now()));
    expect(isConsent(await authorize(app))).toBe(true);
  });
});

describe(`skipAuthorization.whenPreviouslyAuthorized: false (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { skipAuthorization: { whenPreviouslyAuthorized: false } } });
  });
  afterAll(() => server.close());

  it('shows the consent screen even with a live matching token', async () => {
    const alice = await createUser(server.deps, 'alice');
    const app = (await createClient(server.deps)).application;
    await server.deps.stores.accessTokens.create(liveToken(app.id, alice.id, ['read'], server.deps.now()));
    const agent = await signedIn(server.app, 'alice');
    const response = await agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: app.uid, redirect_uri: CALLBACK, response_type: 'code' }),
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Authorization required');
  });
});

describe(`consent is never skipped for a redirect URI other than a registered one (${backend})`, () => {
  let server: TestServer;
  afterAll(() => server.close());

  it('a listed native app on another loopback port sees the consent screen; on its registered URI it does not (finding 7)', async () => {
    server = await buildTestServer({ config: { skipAuthorization: { clients: ['native-listed'] } } });
    await createUser(server.deps, 'alice');
    await createClient(server.deps, { name: 'Native', redirectUri: 'http://127.0.0.1/cb', confidential: false }, { uid: 'native-listed' });
    const agent = await signedIn(server.app, 'alice');
    const pkce = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };
    const request = (redirectUri: string) =>
      agent.request({
        method: 'GET',
        url: authorizeUrl({ client_id: 'native-listed', redirect_uri: redirectUri, response_type: 'code', ...pkce }),
      });
    const otherPort = await request('http://127.0.0.1:5555/cb');
    expect(otherPort.statusCode).toBe(200);
    expect(otherPort.body).toContain('Authorization required');
    const registered = await request('http://127.0.0.1/cb');
    expect(registered.statusCode).toBe(302);
    expect(String(registered.headers.location).startsWith('http://127.0.0.1/cb?code=')).toBe(true);
  });
});
