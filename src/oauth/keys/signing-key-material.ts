import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { SigningAlgorithm } from './signing-keys.js';

// jose makes and exports every key (never hand-written JOSE). It is the one library the domain uses besides node:*:
// signing and verifying tokens is OpenID Connect's own business, not infrastructure's. The kid is the key's RFC 7638 thumbprint, so it
// names the key itself, whichever instance made it.

export interface SigningKeyMaterial {
  kid: string;
  alg: SigningAlgorithm;
  /** Published in the JWKS. */
  publicJwk: JWK;
  /** Stored encrypted; never leaves the service. */
  privateJwk: JWK;
}

const GENERATE: Record<SigningAlgorithm, () => ReturnType<typeof generateKeyPair>> = {
  RS256: () => generateKeyPair('RS256', { modulusLength: 2048, extractable: true }),
  ES256: () => generateKeyPair('ES256', { extractable: true }),
  EdDSA: () => generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true }),
};

export async function generateSigningKey(alg: SigningAlgorithm): Promise<SigningKeyMaterial> {
  const { publicKey, privateKey } = await GENERATE[alg]();
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const described = { kid, alg, use: 'sig' };
  return { kid, alg, publicJwk: { ...publicJwk, ...described }, privateJwk: { ...(await exportJWK(privateKey)), ...described } };
}
