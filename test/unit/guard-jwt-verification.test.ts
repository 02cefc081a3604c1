import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GuardUnavailableError } from '../../packages/guard/src/guard-error.js';
import { jwtSettings } from '../../packages/guard/src/jwt-settings.js';
import { createJwtVerifier } from '../../packages/guard/src/jwt-verification.js';
import type { GuardToken } from '../../packages/guard/src/types.js';

// jwt mode's verification (RFC 9068 section 4) with keys and tokens made by jose, the JWKS served by a small real
// HTTP server whose answers the tests change (a key rotated in, an outage).
const ISSUER = 'https://auth.example.com';
const RESOURCE = 'https://api.example.com/';
type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

let server: Server;
let jwksUrl: string;
const jwks = { keys: [] as JWK[], status: 200, fetches: 0 };
const keys: Record<'a' | 'b' | 'c', KeyPair> = {} as never;

beforeAll(async () => {
  for (const kid of ['a', 'b', 'c'] as const) keys[kid] = await generateKeyPair('RS256', { extractable: true });
  server = createServer((_request, response) => {
    jwks.fetches += 1;
    response.writeHead(jwks.status, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: jwks.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/jwks`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const publish = async (...kids: Array<'a' | 'b' | 'c'>) => {
  jwks.keys = await Promise.all(kids.map(async (kid) => ({ ...(await exportJWK(keys[kid].publicKey)), kid, alg: 'RS256', use: 'sig' })));
};

const clock = { ms: 0 };
const nowSeconds = () => Math.floor(clock.ms / 1000);
beforeEach(async () => {
  clock.ms = 1_800_000_000_000;
  jwks.status = 200;
  jwks.fetches = 0;
  await publish('a');
});

function claims(overrides: JWTPayload = {}): JWTPayload {
  return {
    iss: ISSUER,
    aud: RESOURCE,
    sub: 'user-7',
    client_id: 'notes-app',
    scope: 'read write',
    jti: 'j1',
    iat: nowSeconds(),
    exp: nowSeconds() + 900,
    ...overrides,
  };
}

const sign = (payload: JWTPayload = claims(), { kid = 'a' as 'a' | 'b' | 'c', typ = 'at+jwt' } = {}) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid, typ }).sign(keys[kid].privateKey);

function verifier(options: { jwksCooldownSeconds?: number; jwksMaxAgeSeconds?: number } = {}) {
  const refreshErrors: unknown[] = [];
  const settings = jwtSettings({ mode: 'jwt', issuer: ISSUER, resource: RESOURCE, jwksUri: jwksUrl, ...options }, () => clock.ms);
  return { verify: createJwtVerifier(settings, (error) => refreshErrors.push(error)), refreshErrors };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('guard jwt mode: RFC 9068 section 4 validation', () => {
  it('accepts a valid at+jwt and reads scope, client_id, sub, exp, aud and the claims', async () => {
    const token = (await verifier().verify(await sign())) as GuardToken;
    expect(token).toMatchObject({
      active: true,
      scopes: ['read', 'write'],
      clientId: 'notes-app',
      resourceOwnerId: 'user-7',
      expiresAt: nowSeconds() + 900,
      audience: [RESOURCE],
      claims: { jti: 'j1', iss: ISSUER },
    });
  });

  it('reads no resource owner when sub is the client itself (client_credentials, RFC 9068 section 2.2)', async () => {
    const token = await verifier().verify(await sign(claims({ sub: 'notes-app' })));
    expect(token?.resourceOwnerId).toBeNull();
  });

  it('accepts typ "application/at+jwt" (section 4: the media type, with or without its prefix)', async () => {
    expect((await verifier().verify(await sign(claims(), { typ: 'application/at+jwt' })))?.active).toBe(true);
  });

  it.each(['ES256', 'EdDSA'] as const)('accepts %s, the other asymmetric algorithms the service signs with', async (alg) => {
    const pair = await generateKeyPair(alg, { extractable: true });
    jwks.keys = [{ ...(await exportJWK(pair.publicKey)), kid: alg, alg, use: 'sig' }];
    const token = await new SignJWT(claims()).setProtectedHeader({ alg, kid: alg, typ: 'at+jwt' }).sign(pair.privateKey);
    expect((await verifier().verify(token))?.active).toBe(true);
  });

  it('refuses alg none, with or without a signature part', async () => {
    const unsigned = `${base64url({ alg: 'none', typ: 'at+jwt', kid: 'a' })}.${base64url(claims())}`;
    const { verify } = verifier();
    expect(await verify(`${unsigned}.`)).toBeNull();
    expect(await verify(`${unsigned}.c2lnbmF0dXJl`)).toBeNull();
  });

  it('refuses HS256 signed with the public key as the HMAC secret (the algorithm confusion attack)', async () => {
    const secret = new TextEncoder().encode(await exportSPKI(keys.a.publicKey));
    const forged = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: 'a', typ: 'at+jwt' }).sign(secret);
    expect(await verifier().verify(forged)).toBeNull();
  });

  it('refuses a wrong typ (a plain JWT, an ID token is not an access token)', async () => {
    const { verify } = verifier();
    expect(await verify(await sign(claims(), { typ: 'JWT' }))).toBeNull();
    const noTyp = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: 'a' }).sign(keys.a.privateKey);
    expect(await verify(noTyp)).toBeNull();
  });

  it('answers expired for a token past its exp plus the clock tolerance (5 s), accepts it within', async () => {
    const { verify } = verifier();
    expect(await verify(await sign(claims({ exp: nowSeconds() - 3 })))).toMatchObject({ active: true });
    expect(await verify(await sign(claims({ exp: nowSeconds() - 6 })))).toMatchObject({ active: false, reason: 'expired' });
  });

  it('refuses a token whose nbf is in the future beyond the tolerance', async () => {
    const { verify } = verifier();
    expect(await verify(await sign(claims({ nbf: nowSeconds() + 60 })))).toBeNull();
    expect((await verify(await sign(claims({ nbf: nowSeconds() + 3 }))))?.active).toBe(true);
  });

  it('refuses a token whose iat is in the future beyond the tolerance, accepts it within', async () => {
    const { verify } = verifier();
    expect(await verify(await sign(claims({ iat: nowSeconds() + 600 })))).toBeNull();
    expect((await verify(await sign(claims({ iat: nowSeconds() + 4 }))))?.active).toBe(true);
  });

  it('refuses a token of another issuer, even signed with a published key', async () => {
    expect(await verifier().verify(await sign(claims({ iss: 'https://evil.example.com' })))).toBeNull();
  });

  it('leaves aud to the audience rule: a token for another resource verifies, carrying its audience', async () => {
    const token = await verifier().verify(await sign(claims({ aud: ['https://other.example.com/'] })));
    expect(token?.audience).toEqual(['https://other.example.com/']);
  });

  it('refuses a token without a claim section 2.2 requires (client_id, jti)', async () => {
    const { verify } = verifier();
    expect(await verify(await sign(claims({ client_id: undefined })))).toBeNull();
    expect(await verify(await sign(claims({ jti: undefined })))).toBeNull();
  });

  it('refuses a signature that does not verify, and an opaque token without fetching the JWKS', async () => {
    const { verify } = verifier();
    const token = await sign();
    expect(await verify(`${token.slice(0, -4)}AAAA`)).toBeNull();
    const fetches = jwks.fetches;
    expect(await verify('kH2sXkCw4oyU6hR0xX1Lw4tq9rXqKfGxQ0b3Zp7Ym8s')).toBeNull();
    expect(jwks.fetches).toBe(fetches);
  });
});

describe('guard jwt mode: the JWKS cache', () => {
  it('fetches the keys once for many tokens', async () => {
    const { verify } = verifier();
    await Promise.all([1, 2, 3].map(async () => expect((await verify(await sign()))?.active).toBe(true)));
    expect((await verify(await sign()))?.active).toBe(true);
    expect(jwks.fetches).toBe(1);
  });

  it('refetches on an unknown kid (a key rotated in), at most once per cooldown', async () => {
    const { verify } = verifier({ jwksCooldownSeconds: 30 });
    expect((await verify(await sign()))?.active).toBe(true);
    await publish('a', 'b');
    // Within the cooldown of the first fetch: an unknown kid is refused without a fetch.
    expect(await verify(await sign(claims(), { kid: 'b' }))).toBeNull();
    expect(jwks.fetches).toBe(1);
    clock.ms += 30_000;
    expect((await verify(await sign(claims(), { kid: 'b' })))?.active).toBe(true);
    expect(jwks.fetches).toBe(2);
    // A made-up kid right after: no new fetch (the cooldown keeps forged kids from hammering the JWKS).
    expect(await verify(await sign(claims(), { kid: 'c' }))).toBeNull();
    expect(jwks.fetches).toBe(2);
  });

  it('lets a burst of tokens with a new kid wait for the one refetch instead of refusing them', async () => {
    const { verify } = verifier({ jwksCooldownSeconds: 30 });
    expect((await verify(await sign()))?.active).toBe(true);
    await publish('a', 'b');
    clock.ms += 30_000;
    const tokens = await Promise.all([1, 2, 3, 4].map(() => sign(claims(), { kid: 'b' })));
    const results = await Promise.all(tokens.map((token) => verify(token)));
    expect(results.map((token) => token?.active)).toEqual([true, true, true, true]);
    expect(jwks.fetches).toBe(2);
  });

  it('refuses an introspect list entry that is not a route, at registration', () => {
    const settings = (introspect: unknown) =>
      jwtSettings({ mode: 'jwt', issuer: ISSUER, resource: RESOURCE, introspect: introspect as 'never' }, () => clock.ms);
    expect(settings(['delete /notes/:id', '/account']).introspect).toEqual(new Set(['DELETE /notes/:id', '/account']));
    expect(() => settings(['notes'])).toThrow(/introspect/);
    expect(() => settings('sometimes')).toThrow(/introspect/);
    expect(() => settings(['DELET /notes/:id'])).toThrow(/introspect/);
  });

  it('keeps verifying with the cached keys while the JWKS is down, past their max age', async () => {
    const { verify, refreshErrors } = verifier({ jwksMaxAgeSeconds: 600 });
    expect((await verify(await sign()))?.active).toBe(true);
    jwks.status = 500;
    clock.ms += 3_600_000;
    expect((await verify(await sign()))?.active).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(jwks.fetches).toBe(2);
    expect(refreshErrors).toHaveLength(1);
    expect((await verify(await sign()))?.active).toBe(true);
  });

  it('drops a key the JWKS no longer publishes once the keys are past their max age (a retired key)', async () => {
    const { verify } = verifier({ jwksMaxAgeSeconds: 600, jwksCooldownSeconds: 30 });
    expect((await verify(await sign()))?.active).toBe(true);
    await publish('b');
    clock.ms += 600_000;
    await verify(await sign()); // starts the background refresh
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await verify(await sign())).toBeNull();
  });

  it('issue 29 item 12 (RFC 9068 section 4): the first token after max age waits for the refetch, so a retired key verifies nothing', async () => {
    const { verify } = verifier({ jwksMaxAgeSeconds: 600, jwksCooldownSeconds: 30 });
    expect((await verify(await sign()))?.active).toBe(true);
    await publish('b'); // 'a' retired: gone from the JWKS
    clock.ms += 599_000;
    expect((await verify(await sign()))?.active).toBe(true); // within the cache's lifetime
    expect(jwks.fetches).toBe(1);
    clock.ms += 1_000;
    expect(await verify(await sign())).toBeNull();
    expect(jwks.fetches).toBe(2);
    expect((await verify(await sign(claims(), { kid: 'b' })))?.active).toBe(true);
  });

  it('issue 29 item 12 (RFC 9068 section 4): a token of a key rotated in refetches the JWKS and drops the retired key at once', async () => {
    const { verify } = verifier({ jwksMaxAgeSeconds: 600, jwksCooldownSeconds: 30 });
    expect((await verify(await sign()))?.active).toBe(true);
    await publish('b');
    clock.ms += 30_000; // past the cooldown, far from the max age
    expect((await verify(await sign(claims(), { kid: 'b' })))?.active).toBe(true);
    expect(jwks.fetches).toBe(2);
    expect(await verify(await sign())).toBeNull();
    // The retired kid is unknown now: it refetches at most once per cooldown.
    expect(await verify(await sign())).toBeNull();
    expect(jwks.fetches).toBe(2);
  });

  it('answers unavailable (503) when there are no keys yet, or a new kid cannot be fetched', async () => {
    jwks.status = 503;
    const { verify } = verifier({ jwksCooldownSeconds: 30 });
    await expect(verify(await sign())).rejects.toBeInstanceOf(GuardUnavailableError);
    const second = verifier({ jwksCooldownSeconds: 30 });
    jwks.status = 200;
    expect((await second.verify(await sign()))?.active).toBe(true);
    jwks.status = 503;
    clock.ms += 30_000;
    await expect(second.verify(await sign(claims(), { kid: 'b' }))).rejects.toBeInstanceOf(GuardUnavailableError);
    // Within the cooldown nothing is fetched, and the new kid is still not known to be made up: 503 again, not 401.
    clock.ms += 1_000;
    await expect(second.verify(await sign(claims(), { kid: 'b' }))).rejects.toBeInstanceOf(GuardUnavailableError);
  });

  it('within the cooldown after a fetch that worked, an unknown kid is refused (401): the set was just read', async () => {
    const { verify } = verifier({ jwksCooldownSeconds: 30 });
    expect((await verify(await sign()))?.active).toBe(true);
    clock.ms += 30_000;
    expect(await verify(await sign(claims(), { kid: 'c' }))).toBeNull();
    expect(await verify(await sign(claims(), { kid: 'c' }))).toBeNull();
    expect(jwks.fetches).toBe(2);
  });
});
