import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { halfHash } from '../../src/oauth/openid/id-token.js';
import { createClient, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { codeFlow, openIdServer, verifiedIdToken } from '../helpers/openid.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import type { UserRecord } from '../../src/oauth/store.js';

// ID tokens at the token endpoint (OpenID Connect Core 3.1.3.3, 3.1.3.6, 3.1.3.7 and 12.2): issued for the code
// flow when openid was granted, and on refresh; absent for every client that does not ask for openid.

describe(`ID tokens (${backend})`, () => {
  let server: TestServer;
  let user: UserRecord;
  let agent: UserAgent;
  beforeAll(async () => {
    server = await openIdServer({ config: { optionalScopes: ['write'], grantFlows: ['authorization_code', 'refresh_token'] } });
    user = await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  it('the code flow with openid gets an ID token with every claim of Core 2, verified against the JWKS', async () => {
    const client = await createClient(server.deps);
    const before = Math.floor(Date.now() / 1000);
    const { code, response } = await codeFlow(server, agent, client, { nonce: 'n-0S6_WzA2Mj', scope: 'openid write' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    const claims = await verifiedIdToken(server, body.id_token, client.application.uid);
    expect(claims).toMatchObject({ sub: user.subject, aud: client.application.uid, azp: client.application.uid, nonce: 'n-0S6_WzA2Mj' });
    expect(claims.sub).not.toBe('alice');
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.exp).toBe((claims.iat as number) + server.config.openid.idTokenExpiresIn);
    expect(claims.auth_time).toBeLessThanOrEqual(claims.iat as number);
    expect(typeof claims.sid).toBe('string');
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.at_hash).toBe(halfHash(body.access_token, 'RS256'));
    expect(claims.c_hash).toBeUndefined();
    expect(code).not.toBe('');
    expect(decodeProtectedHeader(body.id_token)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
  });

  it('without a nonce the ID token has none (optional for the code flow)', async () => {
    const client = await createClient(server.deps);
    const { response } = await codeFlow(server, agent, client);
    const claims = await verifiedIdToken(server, response.json().id_token, client.application.uid);
    expect(claims.nonce).toBeUndefined();
  });

  it('without openid there is no ID token, and the response is as before', async () => {
    const client = await createClient(server.deps);
    const { response } = await codeFlow(server, agent, client, { scope: 'write' });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json()).sort()).toEqual([
      'access_token',
      'created_at',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
    ]);
  });

  it('a refresh gets a new ID token with the same sub, auth_time and sid and no nonce (Core 12.2)', async () => {
    const client = await createClient(server.deps);
    const { response } = await codeFlow(server, agent, client, { nonce: 'first' });
    const first = await verifiedIdToken(server, response.json().id_token, client.application.uid);
    server.clock.advance(5);
    const refreshed = await tokenRequest(
      server.app,
      { grant_type: 'refresh_token', refresh_token: response.json().refresh_token },
      basic(client.application.uid, client.plainSecret ?? ''),
    );
    expect(refreshed.statusCode).toBe(200);
    const second = await verifiedIdToken(server, refreshed.json().id_token, client.application.uid);
    expect(second).toMatchObject({ sub: first.sub, auth_time: first.auth_time, sid: first.sid, aud: first.aud });
    expect(second.nonce).toBeUndefined();
    expect(second.iat).toBeGreaterThan(first.iat as number);
  });

  it('signs with the algorithm the client registered (ES256, EdDSA)', async () => {
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const client = await createClient(server.deps);
      await server.deps.stores.applicationAdmin.update(client.application.id, { idTokenSignedResponseAlg: alg });
      const { response } = await codeFlow(server, agent, client);
      const idToken = response.json().id_token as string;
      expect(decodeProtectedHeader(idToken).alg).toBe(alg);
      const claims = await verifiedIdToken(server, idToken, client.application.uid);
      expect(claims.at_hash).toBe(halfHash(response.json().access_token, alg));
    }
  });
});

describe(`with openid.enabled false (${backend})`, () => {
  it('a request for openid is an unknown scope, and nothing OpenID is served', async () => {
    const { buildTestServer } = await import('../helpers/test-server.js');
    const server = await buildTestServer();
    try {
      await createUser(server.deps, 'bob');
      const agent = await signedIn(server.app, 'bob');
      const client = await createClient(server.deps);
      const response = await agent.request({
        method: 'GET',
        url: `/oauth/authorize?client_id=${client.application.uid}&redirect_uri=${encodeURIComponent('https://client.example.com/callback')}&response_type=code&scope=openid`,
      });
      expect(new URL(String(response.headers.location)).searchParams.get('error')).toBe('invalid_scope');
      for (const url of ['/.well-known/openid-configuration', '/oauth/jwks', '/oauth/userinfo']) {
        expect((await server.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
      }
    } finally {
      await server.close();
    }
  });
});
