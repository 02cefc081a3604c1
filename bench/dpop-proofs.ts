// DPoP proofs (RFC 9449 section 4) as a client makes them, shared by bench:dpop and bench:peers' par_code scenario.
import { createHash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** One client key (ES256) and what a proof needs of it. */
export interface ProofKey {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

export async function proofKey(): Promise<ProofKey> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** A fresh proof: a new jti, the current iat, ath when it goes with an access token; no nonce. */
export function proof(key: ProofKey, htm: string, htu: string, accessToken?: string): Promise<string> {
  return new SignJWT({
    htm,
    htu,
    iat: Math.floor(Date.now() / 1000),
    jti: randomBytes(16).toString('base64url'),
    ...(accessToken !== undefined && { ath: sha256(accessToken) }),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);
}
