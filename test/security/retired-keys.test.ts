import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGuard } from '@oauth-service/guard';
import { freePort } from '../../scripts/lib/ports.js';
import { retireSigningKey } from '../../src/oauth/keys/signing-key-service.js';
import { createTokenSigner } from '../../src/oauth/keys/token-signer.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { basic, bearer, introspectRequest, tokenInfoRequest, tokenRequest } from '../helpers/oauth-requests.js';
import { createJwtResource, openIdServer } from '../helpers/openid.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 29 item 12: `keys retire <kid>` (retireSigningKey, what the CLI calls) makes what the key signed stop validating:
// JWT access tokens it signed are inactive at introspection (and refused at token info) on every instance within the
// signer's key-list lifetime (5 s), and a guard in jwt mode refuses them once its JWKS cache has been refetched.

const RESOURCE = 'https://notes.example.com/api';
const KEY_LIST_SECONDS = 6; // past token-signer.ts LIST_TTL_MS

describe(`a retired signing key's tokens stop validating (${backend})`, () => {
  let db: TestDatabase;
  let one: TestServer & { baseUrl: string };
  let two: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const options = { testDatabase: db, env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') }, config: { baseUrl } };
    one = Object.assign(await openIdServer(options), { baseUrl });
    two = await openIdServer(options);
    await one.app.listen({ port, host: '127.0.0.1' });
    client = await createClient(one.deps);
    await createJwtResource(one.deps, RESOURCE);
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await db.drop();
  });

  const credentials = () => basic(client.uid, client.secret!);
  const jwtAccessToken = async (server: TestServer = one) => {
    const response = await tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read', resource: RESOURCE }, credentials());
    expect(response.statusCode, response.body).toBe(200);
    return response.json().access_token as string;
  };
  const kidOf = (token: string) => decodeProtectedHeader(token).kid!;
  const active = async (server: TestServer, token: string) =>
    (await introspectRequest(server.app, { token }, credentials())).json().active as boolean;
  /** Both instances' clocks, moved together past the signer's key-list lifetime. */
  const advance = (seconds: number) => [one, two].forEach((server) => server.clock.advance(seconds));

  /**
   * A guard in jwt mode that has accepted a JWT of the current key (so it holds the JWKS), and that key retired since.
   */
  async function guardAfterRetirement(): Promise<{ api: FastifyInstance; token: string; get: (token: string) => Promise<number> }> {
    const api = Fastify();
    await api.register(serviceGuard, {
      mode: 'jwt',
      issuer: one.baseUrl,
      resource: RESOURCE,
      jwksMaxAgeSeconds: 120,
      jwksCooldownSeconds: 30,
      now: () => one.clock.now.getTime(),
    });
    api.get('/notes', { preHandler: api.serviceAuthorize('read') }, async () => ({ ok: true }));
    const get = async (value: string) => (await api.inject({ method: 'GET', url: '/notes', headers: bearer(value) })).statusCode;
    const token = await jwtAccessToken();
    expect(await get(token)).toBe(200);
    await retireSigningKey(one.deps, kidOf(token));
    return { api, token, get };
  }

  it('issue 29 item 12 (RFC 7662 section 2.2): a JWT access token signed by a retired key is inactive at introspection on every instance', async () => {
    const token = await jwtAccessToken();
    expect(await active(one, token)).toBe(true);
    expect(await active(two, token)).toBe(true);
    expect((await tokenInfoRequest(one.app, bearer(token))).statusCode).toBe(200);

    const { retired, made } = await retireSigningKey(one.deps, kidOf(token));
    expect(retired).toBe(true);
    expect(made).toHaveLength(1);
    advance(KEY_LIST_SECONDS);
    expect((await introspectRequest(one.app, { token }, credentials())).json()).toEqual({ active: false });
    expect((await introspectRequest(two.app, { token }, credentials())).json()).toEqual({ active: false });
    // Token info refuses it (with its one text for every unusable token), and a Bearer requester, as a revoked token.
    const info = await tokenInfoRequest(one.app, bearer(token));
    expect(info.statusCode).toBe(401);
    expect(info.json().error_description).toBe('The access token is invalid');
    const asRequester = await introspectRequest(two.app, { token: 'anything' }, bearer(token));
    expect(asRequester.json()).toEqual({ error: 'invalid_token', error_description: 'The access token was revoked' });

    // The next token is signed by the new key, and is active.
    const next = await jwtAccessToken(two);
    expect(kidOf(next)).toBe(made[0]!.kid);
    expect(await active(one, next)).toBe(true);
  });

  it("issue 29 item 12 (RFC 9068 section 4): a guard in jwt mode refuses a retired key's token once its JWKS max age has passed", async () => {
    const { api, token, get } = await guardAfterRetirement();
    // The documented window: until the guard refetches the JWKS it still holds the key.
    expect(await get(token)).toBe(200);
    one.clock.advance(120);
    const refused = await api.inject({ method: 'GET', url: '/notes', headers: bearer(token) });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error_description).toBe('The access token is invalid');
    await api.close();
  });

  it('issue 29 item 12 (RFC 9068 section 4): a token of the new key makes a guard in jwt mode refetch and drop the retired key', async () => {
    const { api, token, get } = await guardAfterRetirement();
    advance(31); // past the guard's cooldown and the signer's key list, far from the JWKS max age
    const next = await jwtAccessToken();
    expect(kidOf(next)).not.toBe(kidOf(token));
    expect(await get(next)).toBe(200);
    expect(await get(token)).toBe(401);
    await api.close();
  });

  it('issue 29 item 12 (OpenID Connect RP-Initiated Logout 1.0 section 2): an id_token_hint signed by a retired key is refused', async () => {
    const now = Math.floor(one.clock.now.getTime() / 1000);
    const hint = await createTokenSigner(one.deps).sign({ iss: one.baseUrl, sub: 'someone', aud: client.uid, iat: now, exp: now + 300 });
    const endSession = () => one.app.inject({ method: 'GET', url: `/oauth/end_session?id_token_hint=${hint}` });
    expect((await endSession()).body).not.toContain('The id_token_hint is not an ID token issued by this server.');
    await retireSigningKey(one.deps, kidOf(hint));
    const refused = await endSession();
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('The id_token_hint is not an ID token issued by this server.');
  });
});
