import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../src/oauth/tokens/token-issuer.js';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { createClient, createUser } from '../helpers/end-user.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// RFC 9449 section 7 at this server's own protected resource, UserInfo: a bound token only with the DPoP scheme and
// a proof of its key for this URL and token (ath); sent as Bearer it is refused (section 7.2).

describe(`DPoP at UserInfo, RFC 9449 section 7 (${backend})`, () => {
  let server: TestServer;
  let key: DpopKey;
  let url: string;
  let bound: string;
  let unbound: string;
  beforeAll(async () => {
    server = await openIdServer();
    const user = await createUser(server.deps, 'alice');
    const { application } = await createClient(server.deps);
    key = await dpopKey();
    url = `${server.config.baseUrl.replace(/\/+$/, '')}/oauth/userinfo`;
    const issue = async (dpopJkt: string | null) =>
      (
        await issueAccessToken(server.deps, {
          application,
          resourceOwnerId: user.id,
          scopes: ['openid'],
          grantType: 'authorization_code',
          withRefreshToken: false,
          dpopJkt,
        })
      ).accessToken;
    bound = await issue(key.jkt);
    unbound = await issue(null);
  });
  afterAll(() => server.close());

  const ath = (token: string) => createHash('sha256').update(token).digest('base64url');
  const get = (authorization: string, dpop?: string) =>
    server.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: { authorization, ...(dpop && { dpop }) } });

  it('a bound token with the DPoP scheme and a proof of its key gets the claims', async () => {
    const response = await get(`DPoP ${bound}`, await dpopProof(key, { htm: 'GET', htu: url, ath: ath(bound) }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveProperty('sub');
  });

  it('section 7.2: a bound token sent as Bearer is refused, with the DPoP challenge beside the Bearer one (as token info)', async () => {
    const response = await get(`Bearer ${bound}`);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(
      /^Bearer realm="oauth-service", DPoP realm="oauth-service", error="invalid_token", error_description="The access token is bound to a key and must be sent with the DPoP scheme and a proof", algs="[^"]+"$/,
    );
  });

  it('a proof by another key, for another token (ath) or another URL, or none, is refused', async () => {
    const other = await dpopKey();
    expect((await get(`DPoP ${bound}`, await dpopProof(other, { htm: 'GET', htu: url, ath: ath(bound) }))).statusCode).toBe(401);
    const wrongAth = await get(`DPoP ${bound}`, await dpopProof(key, { htm: 'GET', htu: url, ath: ath(unbound) }));
    expect(wrongAth.json().error).toBe('invalid_dpop_proof');
    expect((await get(`DPoP ${bound}`, await dpopProof(key, { htm: 'GET', htu: `${url}x`, ath: ath(bound) }))).json().error).toBe(
      'invalid_dpop_proof',
    );
    expect((await get(`DPoP ${bound}`)).json().error).toBe('invalid_dpop_proof');
  });

  it('section 7.1: a refused proof is 401 with the DPoP challenge naming the error and the algorithms, as at token info', async () => {
    const algs = `algs="${server.config.dpop.algorithms.join(' ')}"`;
    for (const proof of [undefined, 'not-a-jwt', await dpopProof(key, { htm: 'GET', htu: url, ath: ath(unbound) })]) {
      const response = await get(`DPoP ${bound}`, proof);
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('invalid_dpop_proof');
      expect(response.headers['www-authenticate']).toMatch(
        /^DPoP realm="oauth-service", error="invalid_dpop_proof", error_description="[^"]+"/,
      );
      expect(response.headers['www-authenticate']).toContain(algs);
    }
    const otherKey = await get(`DPoP ${bound}`, await dpopProof(await dpopKey(), { htm: 'GET', htu: url, ath: ath(bound) }));
    expect(otherKey.headers['www-authenticate']).toMatch(/^DPoP realm="oauth-service", error="invalid_token", .*algs="/);
  });

  it('section 9: with nonces required, a proof without one is 401 use_dpop_nonce with DPoP-Nonce; with it, the claims', async () => {
    const nonceServer = await openIdServer({ config: { dpop: { nonce: { required: true, rotateSeconds: 300 } } } });
    try {
      const user = await createUser(nonceServer.deps, 'bob');
      const { application } = await createClient(nonceServer.deps);
      const token = (
        await issueAccessToken(nonceServer.deps, {
          application,
          resourceOwnerId: user.id,
          scopes: ['openid'],
          grantType: 'authorization_code',
          withRefreshToken: false,
          dpopJkt: key.jkt,
        })
      ).accessToken;
      const at = `${nonceServer.config.baseUrl.replace(/\/+$/, '')}/oauth/userinfo`;
      const send = async (nonce?: string) =>
        nonceServer.app.inject({
          method: 'GET',
          url: '/oauth/userinfo',
          headers: { authorization: `DPoP ${token}`, dpop: await dpopProof(key, { htm: 'GET', htu: at, ath: ath(token), nonce }) },
        });
      const asked = await send();
      expect(asked.statusCode).toBe(401);
      // Section 9's wording: here UserInfo is the resource server asking, not the authorization server (section 8).
      expect(asked.json()).toEqual({ error: 'use_dpop_nonce', error_description: 'Resource server requires nonce in DPoP proof.' });
      expect(asked.headers['www-authenticate']).toMatch(
        /^DPoP realm="oauth-service", error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof.", /,
      );
      const nonce = String(asked.headers['dpop-nonce']);
      expect(nonce).not.toBe('undefined');
      expect((await send(nonce)).statusCode).toBe(200);
    } finally {
      await nonceServer.close();
    }
  });

  it('a bearer token sent with the DPoP scheme is refused; as Bearer it works as before', async () => {
    expect((await get(`DPoP ${unbound}`, await dpopProof(key, { htm: 'GET', htu: url, ath: ath(unbound) }))).statusCode).toBe(401);
    expect((await get(`Bearer ${unbound}`)).statusCode).toBe(200);
  });
});
