import { createHash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

// DPoP proofs for the guard's tests (RFC 9449), made with jose as a client library would, for an API at ORIGIN.

export const ORIGIN = 'http://api.test';
export const ALGS = 'ES256 ES384 EdDSA Ed25519 RS256 PS256';
// RFC 9449 section 4.2: ath = base64url(SHA-256(access token)).
export const accessTokenHash = (token: string) => createHash('sha256').update(token, 'ascii').digest('base64url');
export const NONCE_SECRET = 'nonce secret shared by both API instances';

export interface ClientKey {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

export async function clientKey(): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

export function proofFor(key: ClientKey, method: string, htu: string, token: string, claims: JWTPayload = {}): Promise<string> {
  return new SignJWT({
    jti: randomBytes(12).toString('base64url'),
    htm: method,
    htu,
    iat: Math.floor(Date.now() / 1000),
    ath: accessTokenHash(token),
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);
}

export const dpopHeaders = async (key: ClientKey, token: string, method = 'GET', url = `${ORIGIN}/notes`, claims: JWTPayload = {}) => ({
  authorization: `DPoP ${token}`,
  dpop: await proofFor(key, method, url, token, claims),
});
