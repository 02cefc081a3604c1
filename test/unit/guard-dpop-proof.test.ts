import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DpopNonces } from '../../packages/guard/src/dpop-nonce.js';
import { accessTokenHash, verifyDpopProof, type DpopVerifier } from '../../packages/guard/src/dpop-proof.js';
import { DpopReplayCache } from '../../packages/guard/src/dpop-replay-cache.js';
import { dpopSettings } from '../../packages/guard/src/dpop-settings.js';
import type { DpopOptions } from '../../packages/guard/src/index.js';
import { jwtGuardToken } from '../../packages/guard/src/jwt-verification.js';
import { toGuardToken } from '../../packages/guard/src/remote-introspection.js';
import { evaluateRequestToken, type DpopCheck } from '../../packages/guard/src/token-evaluation.js';
import type { GuardToken } from '../../packages/guard/src/types.js';

// RFC 9449 section 4.3 (checking a proof), section 7 (the ath claim and the binding at a resource server) and section 9
// (resource server nonces), one check per test, with keys made by jose.

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const URL_ = 'https://api.example.com/notes';
const TOKEN = 'access-token-1';
const SECRET = 'a shared nonce secret of 32 bytes or more';

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function key(alg: 'ES256' | 'EdDSA' | 'RS256' | 'PS256' = 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

let es256: Key;
let other: Key;
let counter = 0;

beforeAll(async () => {
  es256 = await key('ES256');
  other = await key('ES256');
});

interface ProofOptions {
  key?: Key;
  alg?: string;
  typ?: string;
  jwk?: JWK;
  claims?: JWTPayload;
  omit?: string[];
  signingKey?: CryptoKey | Uint8Array;
}

/** A proof for GET https://api.example.com/notes with TOKEN, made now, unless options say otherwise. */
async function proof(options: ProofOptions = {}): Promise<string> {
  const signer = options.key ?? es256;
  counter += 1;
  const claims: JWTPayload = {
    jti: `jti-${counter}-${Math.random()}`,
    htm: 'GET',
    htu: URL_,
    iat: Math.floor(NOW / 1000),
    ath: accessTokenHash(TOKEN),
    ...options.claims,
  };
  for (const name of options.omit ?? []) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'ES256', typ: options.typ ?? 'dpop+jwt', jwk: options.jwk ?? signer.jwk })
    .sign(options.signingKey ?? signer.privateKey);
}

function verifier(options: DpopOptions = {}, now = () => NOW): DpopVerifier {
  const settings = dpopSettings(options)!;
  return {
    settings,
    replays: new DpopReplayCache(settings.replayCacheMaxEntries, now),
    nonces: settings.nonce && new DpopNonces(settings.nonce.secret, settings.nonce.rotateSeconds, now),
    now,
  };
}

const request = { method: 'GET', url: URL_, accessToken: TOKEN };

async function refusal(value: string | string[] | undefined, against = request, check = verifier()): Promise<string> {
  const result = await verifyDpopProof(value, against, check);
  if (result.ok) throw new Error('the proof was accepted');
  return result.detail;
}

describe('guard: a DPoP proof (RFC 9449 section 4.3)', () => {
  it('is accepted when every check holds, and names its key by its RFC 7638 thumbprint', async () => {
    expect(await verifyDpopProof(await proof(), request, verifier())).toEqual({ ok: true, jkt: es256.jkt, nonce: null });
    for (const alg of ['EdDSA', 'RS256', 'PS256'] as const) {
      const signer = await key(alg);
      expect(await verifyDpopProof(await proof({ key: signer, alg }), request, verifier())).toMatchObject({ ok: true, jkt: signer.jkt });
    }
  });

  it('step 1: is required, once', async () => {
    expect(await refusal(undefined)).toBe('The request has no DPoP proof');
    const value = await proof();
    expect(await refusal([value, value])).toBe('The request has more than one DPoP proof');
    expect(await refusal(`${value}, ${value}`)).toBe('The request has more than one DPoP proof');
  });

  it('steps 2-3: is a JWT', async () => {
    expect(await refusal('not-a-jwt')).toBe('The DPoP proof is not a JWT');
    expect(await refusal('a.b.c')).toBe('The DPoP proof is not a JWT');
  });

  it('step 5: has typ dpop+jwt', async () => {
    expect(await refusal(await proof({ typ: 'JWT' }))).toBe('The DPoP proof does not have typ dpop+jwt');
    expect(await refusal(await proof({ typ: 'at+jwt' }))).toBe('The DPoP proof does not have typ dpop+jwt');
  });

  it('step 6: refuses a symmetric alg (HS256), and any alg outside dpop.algorithms', async () => {
    const hs256 = await proof({ alg: 'HS256', signingKey: new TextEncoder().encode('a'.repeat(32)) });
    expect(await refusal(hs256)).toBe("The DPoP proof's alg is not one of ES256 ES384 EdDSA Ed25519 RS256 PS256");
    const rs256 = await key('RS256');
    expect(await refusal(await proof({ key: rs256, alg: 'RS256' }), request, verifier({ algorithms: ['ES256'] }))).toMatch(
      /alg is not one of ES256$/,
    );
    expect(() => dpopSettings({ algorithms: ['HS256' as never] })).toThrow(/dpop.algorithms/);
    expect(() => dpopSettings({ algorithms: [] })).toThrow(/dpop.algorithms/);
  });

  it('step 7: refuses a jwk header holding a private key', async () => {
    const privateJwk = await exportJWK(es256.privateKey);
    expect(privateJwk.d).toBeDefined();
    expect(await refusal(await proof({ jwk: privateJwk }))).toBe("The DPoP proof's jwk header holds a private key");
    expect(await refusal(await proof({ jwk: { ...es256.jwk, k: 'AAAA' } }))).toBe("The DPoP proof's jwk header holds a private key");
  });

  it('step 7: refuses a proof without a jwk header, one that is no object, and one that is no usable public key', async () => {
    const claims = { jti: 'no-jwk', htm: 'GET', htu: URL_, iat: Math.floor(NOW / 1000), ath: accessTokenHash(TOKEN) };
    const withoutJwk = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt' }).sign(es256.privateKey);
    expect(await refusal(withoutJwk)).toBe('The DPoP proof has no jwk header');
    expect(await refusal(await proof({ jwk: [es256.jwk] as unknown as JWK }))).toBe('The DPoP proof has no jwk header');
    const { x: _x, y: _y, ...pointless } = es256.jwk;
    expect(await refusal(await proof({ jwk: pointless }))).toBe('The DPoP proof is invalid');
  });

  it('step 8: is signed by the key of its jwk header', async () => {
    expect(await refusal(await proof({ jwk: other.jwk }))).toBe("The DPoP proof's signature does not verify with its jwk");
  });

  it('step 4: has jti, htm, htu and iat', async () => {
    for (const claim of ['jti', 'htm', 'htu', 'iat']) {
      expect(await refusal(await proof({ omit: [claim] }))).toBe(`The DPoP proof lacks the ${claim} claim or it is invalid`);
    }
  });

  it('step 4: its jti is a string of 1 to 256 characters', async () => {
    for (const jti of ['', 'j'.repeat(257), 42])
      expect(await refusal(await proof({ claims: { jti: jti as string } }))).toBe('The DPoP proof has no valid jti');
    expect(await verifyDpopProof(await proof({ claims: { jti: 'j'.repeat(256) } }), request, verifier())).toMatchObject({ ok: true });
  });

  it('step 9: htm is the method of the request', async () => {
    expect(await refusal(await proof(), { ...request, method: 'POST' })).toBe("The DPoP proof's htm is not the method of the request");
    expect(await refusal(await proof({ claims: { htm: 'get' } }))).toBe("The DPoP proof's htm is not the method of the request");
  });

  it('step 10: htu is the URL of the request, compared without query and fragment, after normalization', async () => {
    expect(await refusal(await proof(), { ...request, url: 'https://api.example.com/other' })).toBe(
      "The DPoP proof's htu is not the URL of the request",
    );
    expect(await refusal(await proof(), { ...request, url: 'https://other.example.com/notes' })).toMatch(/htu/);
    expect(await refusal(await proof(), { ...request, url: 'http://api.example.com/notes' })).toMatch(/htu/);
    expect(await refusal(await proof({ claims: { htu: 'notes' } }))).toMatch(/htu/);
    const withQuery = await proof({ claims: { htu: `${URL_}?page=2#top` } });
    expect(await verifyDpopProof(withQuery, { ...request, url: `${URL_}?page=3` }, verifier())).toMatchObject({ ok: true });
    const normalized = await proof({ claims: { htu: 'HTTPS://API.example.com:443/notes' } });
    expect(await verifyDpopProof(normalized, request, verifier())).toMatchObject({ ok: true });
  });

  it('step 11: iat is recent: refused older than proofMaxAgeSeconds, or ahead by more than the clock tolerance', async () => {
    const iat = Math.floor(NOW / 1000);
    expect(await refusal(await proof({ claims: { iat: iat - 301 } }))).toBe('The DPoP proof is too old');
    expect(await refusal(await proof({ claims: { iat: iat - 61 } }), request, verifier({ proofMaxAgeSeconds: 60 }))).toBe(
      'The DPoP proof is too old',
    );
    expect(await refusal(await proof({ claims: { iat: iat + 6 } }))).toBe('The DPoP proof was issued in the future');
    expect(await verifyDpopProof(await proof({ claims: { iat: iat - 299 } }), request, verifier())).toMatchObject({ ok: true });
    expect(await verifyDpopProof(await proof({ claims: { iat: iat + 4 } }), request, verifier())).toMatchObject({ ok: true });
  });

  it('step 12 (section 11.1): a proof is accepted once; its replay is refused, also for another request', async () => {
    const check = verifier();
    const value = await proof();
    expect(await verifyDpopProof(value, request, check)).toMatchObject({ ok: true });
    expect(await refusal(value, request, check)).toBe('The DPoP proof was already used');
    // A refused proof is not remembered: it can be fixed and sent again.
    const late = await proof({ claims: { jti: 'fixed' }, omit: ['ath'] });
    expect(await refusal(late, request, check)).toMatch(/ath/);
    expect(await verifyDpopProof(await proof({ claims: { jti: 'fixed' } }), request, check)).toMatchObject({ ok: true });
  });

  it('section 7: ath is the base64url SHA-256 of the access token, and is required', async () => {
    expect(accessTokenHash(TOKEN)).toBe(createHash('sha256').update(TOKEN).digest('base64url'));
    expect(await refusal(await proof({ omit: ['ath'] }))).toBe("The DPoP proof's ath is not the hash of the access token");
    expect(await refusal(await proof(), { ...request, accessToken: 'another-token' })).toMatch(/ath/);
    expect(await refusal(await proof({ claims: { ath: TOKEN } }))).toMatch(/ath/);
  });
});

describe('guard: the proof replay cache', () => {
  it('forgets a proof once it would be refused as too old anyway, and stays within its bound', () => {
    let now = NOW;
    const cache = new DpopReplayCache(2, () => now);
    expect(cache.remember('k', 'a', NOW + 1000)).toBe(true);
    expect(cache.remember('k', 'a', NOW + 1000)).toBe(false);
    expect(cache.remember('other-key', 'a', NOW + 1000)).toBe(true);
    expect(cache.remember('k', 'b', NOW + 5000)).toBe(true);
    expect(cache.size).toBe(2);
    now += 2000;
    expect(cache.remember('k', 'c', NOW + 9000)).toBe(true);
    expect(cache.size).toBe(2);
    expect(cache.remember('k', 'b', NOW + 5000)).toBe(false);
  });
});

describe('guard: resource server nonces (RFC 9449 section 9)', () => {
  const nonceOptions = (extra: Partial<NonNullable<DpopOptions['nonce']>> = {}): DpopOptions => ({
    nonce: { required: true, secret: SECRET, rotateSeconds: 60, ...extra },
  });

  it('a proof without a nonce, or with a made-up one, gets use_dpop_nonce', async () => {
    const check = verifier(nonceOptions());
    expect(await verifyDpopProof(await proof(), request, check)).toEqual({
      ok: false,
      problem: 'dpop_nonce',
      detail: 'The resource requires a DPoP nonce',
    });
    expect(await verifyDpopProof(await proof({ claims: { nonce: '1.abc' } }), request, check)).toMatchObject({
      problem: 'dpop_nonce',
      detail: 'The DPoP nonce is invalid or expired',
    });
  });

  it('a nonce of one guard is accepted by another sharing the secret, not by one with another secret', async () => {
    const first = verifier(nonceOptions());
    const second = verifier(nonceOptions());
    const nonce = first.nonces!.current();
    expect(nonce).toMatch(/^[\x21\x23-\x5B\x5D-\x7E]+$/);
    expect(await verifyDpopProof(await proof({ claims: { nonce } }), request, second)).toMatchObject({ ok: true, nonce: 'current' });
    const stranger = verifier(nonceOptions({ secret: 'another secret, also 32 bytes long or more' }));
    expect(await verifyDpopProof(await proof({ claims: { nonce } }), request, stranger)).toMatchObject({ problem: 'dpop_nonce' });
    // Without a secret each guard makes its own.
    const own = verifier(nonceOptions({ secret: undefined }));
    expect(await verifyDpopProof(await proof({ claims: { nonce } }), request, own)).toMatchObject({ problem: 'dpop_nonce' });
  });

  it('a nonce stays valid for the next period (answered "previous"), then expires', async () => {
    let now = NOW;
    const check = verifier(nonceOptions(), () => now);
    const nonce = check.nonces!.current();
    now += 60_000;
    const iat = Math.floor(now / 1000);
    expect(await verifyDpopProof(await proof({ claims: { nonce, iat } }), request, check)).toMatchObject({ ok: true, nonce: 'previous' });
    expect(check.nonces!.current()).not.toBe(nonce);
    now += 60_000;
    expect(await verifyDpopProof(await proof({ claims: { nonce, iat: iat + 60 } }), request, check)).toMatchObject({
      problem: 'dpop_nonce',
      detail: 'The DPoP nonce is invalid or expired',
    });
  });

  it('is not checked when not required', async () => {
    const check = verifier({ nonce: { required: false, secret: SECRET } });
    expect(await verifyDpopProof(await proof(), request, check)).toMatchObject({ ok: true, nonce: null });
  });

  it('a secret shorter than 32 bytes fails the registration', () => {
    expect(() => dpopSettings({ nonce: { required: true, secret: 'short' } })).toThrow(/at least 32 bytes/);
  });
});

describe('guard: the binding of token and proof (RFC 9449 sections 6 and 7)', () => {
  const token = (jkt: string | null): GuardToken => ({
    active: true,
    scopes: ['read'],
    clientId: 'spa',
    resourceOwnerId: 1,
    expiresAt: NOW / 1000 + 600,
    dpopJkt: jkt,
  });
  const lookup = (value: GuardToken | null) => async () => value;
  const dpop = (check = verifier(), required = false): DpopCheck => ({
    required,
    verify: async (accessToken) => verifyDpopProof(currentProof, { ...request, accessToken }, check),
  });
  let currentProof: string | undefined;
  const now = () => NOW;

  it('a token bound to the proof key passes; bound to another key, the proof is refused (thumbprint mismatch)', async () => {
    currentProof = await proof();
    expect(await evaluateRequestToken(`DPoP ${TOKEN}`, lookup(token(es256.jkt)), now, {}, dpop())).toEqual({
      token: token(es256.jkt),
      problem: null,
    });
    currentProof = await proof();
    expect(await evaluateRequestToken(`DPoP ${TOKEN}`, lookup(token(other.jkt)), now, {}, dpop())).toEqual({
      token: null,
      problem: 'dpop_proof',
      detail: 'The DPoP proof is not signed by the key the access token is bound to',
    });
  });

  it('a bound token sent as Bearer is refused (section 7.2), with or without DPoP support', async () => {
    expect(await evaluateRequestToken(`Bearer ${TOKEN}`, lookup(token(es256.jkt)), now, {}, dpop())).toEqual({
      token: null,
      problem: 'dpop_bound',
    });
    expect(await evaluateRequestToken(`Bearer ${TOKEN}`, lookup(token(es256.jkt)), now)).toEqual({ token: null, problem: 'dpop_bound' });
  });

  it('an unbound token sent with the DPoP scheme is refused; as Bearer it passes unless DPoP is required', async () => {
    currentProof = await proof();
    expect(await evaluateRequestToken(`DPoP ${TOKEN}`, lookup(token(null)), now, {}, dpop())).toEqual({
      token: null,
      problem: 'dpop_unbound',
    });
    expect(await evaluateRequestToken(`Bearer ${TOKEN}`, lookup(token(null)), now, {}, dpop())).toMatchObject({ problem: null });
    expect(await evaluateRequestToken(`Bearer ${TOKEN}`, lookup(token(null)), now, {}, dpop(verifier(), true))).toEqual({
      token: null,
      problem: 'dpop_required',
    });
  });

  it('a DPoP credential is no token at all when DPoP is off, and its proof is checked before any lookup when on', async () => {
    const never = async (): Promise<GuardToken | null> => {
      throw new Error('looked up');
    };
    expect(await evaluateRequestToken(`DPoP ${TOKEN}`, never, now)).toEqual({ token: null, problem: 'missing' });
    currentProof = undefined;
    expect(await evaluateRequestToken(`DPoP ${TOKEN}`, never, now, {}, dpop())).toEqual({
      token: null,
      problem: 'dpop_proof',
      detail: 'The request has no DPoP proof',
    });
    expect(await evaluateRequestToken('DPoP a b', never, now, {}, dpop())).toEqual({ token: null, problem: 'unknown' });
  });

  it('introspection (RFC 9449 section 6.2) and JWT claims (section 6.1) carry cnf.jkt into the token', () => {
    const answer = { active: true, token_type: 'DPoP', scope: 'read', cnf: { jkt: es256.jkt } };
    expect(toGuardToken(answer)).toMatchObject({ active: true, dpopJkt: es256.jkt });
    expect(toGuardToken({ ...answer, token_type: 'dpop' })).toMatchObject({ dpopJkt: es256.jkt });
    // token_type DPoP without cnf.jkt is not an access token the guard can check.
    expect(toGuardToken({ ...answer, cnf: undefined })).toBeNull();
    expect(toGuardToken({ ...answer, cnf: { 'x5t#S256': 'x' } })).toBeNull();
    // A cnf.jkt binds the token whatever its token_type says.
    expect(toGuardToken({ ...answer, token_type: 'Bearer' })).toMatchObject({ dpopJkt: es256.jkt });
    expect(toGuardToken({ active: true, token_type: 'Bearer' })?.dpopJkt).toBeUndefined();
    expect(jwtGuardToken({ sub: 'u', client_id: 'c', cnf: { jkt: es256.jkt } }).dpopJkt).toBe(es256.jkt);
    expect(jwtGuardToken({ sub: 'u', client_id: 'c' }).dpopJkt).toBeUndefined();
  });
});
