import { createHash } from 'node:crypto';
import type { SigningAlgorithm } from '../keys/signing-keys.js';

// The claims of an ID token (OpenID Connect Core 1.0 sections 2, 3.1.3.6 and 3.3.2.11), built from what the
// code exchange or a refresh knows; id-token-issuer.ts signs them (token-signer.ts).

export interface IdTokenInput {
  issuer: string;
  /** Stable and never the user name (user names can change). */
  subject: string;
  /** The client_id of the application the token is for. */
  clientId: string;
  now: Date;
  lifetimeSeconds: number;
  alg: SigningAlgorithm;
  /** When the user last authenticated (the login session), if known. */
  authTime?: Date | null;
  /** Echoed exactly as the authorization request sent it. */
  nonce?: string | null;
  /** The access token issued with it: at_hash (required with the implicit id_token token, useful always). */
  accessToken?: string | null;
  /** The code issued with it (hybrid flows): c_hash. */
  code?: string | null;
  sessionId?: string | null;
  amr?: readonly string[] | null;
  /** Core 2: the level of that sign-in, one of config authentication.acr. */
  acr?: string | null;
}

// Core 3.1.3.6: the hash of the JWS alg; for EdDSA the curve's, SHA-512 for Ed25519 (as OpenID certification uses).
const HASH: Record<SigningAlgorithm, 'sha256' | 'sha512'> = { RS256: 'sha256', ES256: 'sha256', EdDSA: 'sha512' };

/** The left-most half of the hash of the ASCII octets of `value`, base64url (at_hash, c_hash). */
export function halfHash(value: string, alg: SigningAlgorithm): string {
  const digest = createHash(HASH[alg]).update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export function idTokenClaims(input: IdTokenInput): Record<string, unknown> {
  const iat = Math.floor(input.now.getTime() / 1000);
  return {
    iss: input.issuer,
    sub: input.subject,
    aud: input.clientId,
    exp: iat + input.lifetimeSeconds,
    iat,
    ...(input.authTime && { auth_time: Math.floor(input.authTime.getTime() / 1000) }),
    ...(input.nonce !== undefined && input.nonce !== null && { nonce: input.nonce }),
    // Core 2: azp is the party the token was issued to; with a single audience it equals aud.
    azp: input.clientId,
    ...(input.accessToken && { at_hash: halfHash(input.accessToken, input.alg) }),
    ...(input.code && { c_hash: halfHash(input.code, input.alg) }),
    ...(input.sessionId && { sid: input.sessionId }),
    ...(input.amr && input.amr.length > 0 && { amr: [...input.amr] }),
    ...(input.acr && { acr: input.acr }),
  };
}
