import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

// DPoP proofs (RFC 9449 section 4) made as a client makes them, through jose, with knobs to break each rule.

export interface DpopKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  jkt: string;
  alg: string;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256'), alg };
}

export interface ProofOptions {
  htm?: string;
  htu: string;
  /** null: the proof has no iat. */
  iat?: number | null;
  jti?: string;
  nonce?: string;
  ath?: string;
  typ?: string;
  /** Replaces the header's jwk (e.g. with the private key). */
  jwk?: JWK;
}

export async function dpopProof(key: DpopKey, options: ProofOptions): Promise<string> {
  const { htm = 'POST', htu, iat = Math.floor(Date.now() / 1000), jti = randomUUID(), nonce, ath, typ = 'dpop+jwt', jwk } = options;
  return new SignJWT({ htm, htu, ...(iat !== null && { iat }), jti, ...(nonce && { nonce }), ...(ath && { ath }) })
    .setProtectedHeader({ alg: key.alg, typ, jwk: jwk ?? key.publicJwk })
    .sign(key.privateKey);
}
