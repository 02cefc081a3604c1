import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { NESTED_TOO_DEEPLY, nestedTooDeeply } from '../../json-nesting.js';
import { ASSERTION_ALGORITHMS } from './assertion-methods.js';

// A private_key_jwt client's public keys (RFC 7591 section 2 `jwks`, RFC 7517 section 5), checked where they are
// written (CLI, admin UI, registration, metadata documents) and where they are fetched (jwks_uri): a set of public
// keys of the types the accepted algorithms use, small, and never a private or symmetric key (a client that sends its
// private key has leaked it: refusing says so). Each key must be one Node.js's crypto can import, and an RSA key as
// long as RFC 7518 section 3.3 asks: jose refuses the others at verification, too late to tell the client (a 500).

export const MAX_JWKS_KEYS = 20;
export const MAX_JWKS_LENGTH = 32_768;
const KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const MIN_RSA_BITS = 2048;

export interface JsonWebKeySet {
  keys: Record<string, unknown>[];
}

/** What is wrong with a JWK Set, in words for the one who sent it; null when it is usable. */
export function jwksProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'jwks must be a JSON object with a "keys" array';
  const keys = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return 'jwks must hold a non-empty "keys" array';
  if (keys.length > MAX_JWKS_KEYS) return `jwks may hold at most ${MAX_JWKS_KEYS} keys`;
  // A key is flat: a member nested thousands deep is no key's, and would fail its storing (json-nesting.ts).
  if (nestedTooDeeply(value)) return `jwks is ${NESTED_TOO_DEEPLY}`;
  for (const key of keys as unknown[]) {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return 'jwks keys must each be a JSON object';
    const { kty } = key as { kty?: unknown };
    if (typeof kty !== 'string' || !KEY_TYPES.has(kty)) return 'jwks keys must each be an RSA, EC or OKP public key';
    if (PRIVATE_MEMBERS.some((member) => member in key)) return 'jwks must hold public keys only (a private key was sent)';
  }
  for (const [index, key] of (keys as Record<string, unknown>[]).entries()) {
    const problem = publicKeyProblem(key);
    if (problem !== null) return `jwks key ${index + 1} ${problem}`;
  }
  // A set may carry keys for other ends (encryption, say), which verification passes over as jose does; one key at
  // least must verify the client's signatures, or the client could never authenticate (a bare invalid_client).
  const unusable = (keys as Record<string, unknown>[]).map(verifyingKeyProblem);
  if (unusable.every((problem) => problem !== null))
    return `jwks holds no key that can verify the client's signatures (${SIGNING_KEYS}): key 1 ${unusable[0]}`;
  return null;
}

type PrivateKeyJwtAlgorithm = (typeof ASSERTION_ALGORITHMS.private_key_jwt)[number];
/** The key each accepted algorithm verifies with (RFC 7518 section 3.1, RFC 8037): an algorithm added there needs a line here. */
const KEY_OF: Record<PrivateKeyJwtAlgorithm, { kty: string; crv?: string }> = {
  RS256: { kty: 'RSA' },
  PS256: { kty: 'RSA' },
  ES256: { kty: 'EC', crv: 'P-256' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519' },
  Ed25519: { kty: 'OKP', crv: 'Ed25519' },
};
const ALGORITHMS: readonly PrivateKeyJwtAlgorithm[] = ASSERTION_ALGORITHMS.private_key_jwt;
const keyName = ({ kty, crv }: { kty: string; crv?: string }) => (crv === undefined ? kty : `${kty} ${crv}`);
// "RSA for RS256 or PS256, EC P-256 for ES256, ...": each kind of key with the algorithms it verifies.
const SIGNING_KEYS = `${[...new Set(ALGORITHMS.map((alg) => keyName(KEY_OF[alg])))]
  .map((name) => `${name} for ${ALGORITHMS.filter((alg) => keyName(KEY_OF[alg]) === name).join(' or ')}`)
  .join(', ')}, with use sig and key_ops verify if given`;

/** Why a public key cannot verify a client's JWT here (RFC 7517 sections 4.2-4.4, the accepted algorithms), or null. */
function verifyingKeyProblem(key: Record<string, unknown>): string | null {
  const { kty, crv, use, alg } = key as { kty: string; crv?: unknown; use?: unknown; alg?: unknown };
  const keyOps = key.key_ops;
  if (use !== undefined && use !== 'sig') return `is for use ${JSON.stringify(use)}, not sig`;
  if (keyOps !== undefined && !(Array.isArray(keyOps) && keyOps.includes('verify'))) return 'has key_ops without verify';
  const ofType = ALGORITHMS.filter((candidate) => KEY_OF[candidate].kty === kty);
  const fitting = ofType.filter((candidate) => [undefined, crv].includes(KEY_OF[candidate].crv));
  if (fitting.length === 0) {
    const curves = [...new Set(ofType.map((candidate) => KEY_OF[candidate].crv ?? 'none'))];
    return `is on curve ${JSON.stringify(crv)}, not ${curves.join(' or ')}`;
  }
  if (alg !== undefined && !fitting.includes(alg as PrivateKeyJwtAlgorithm))
    return `has alg ${JSON.stringify(alg)}, not ${fitting.join(' or ')}`;
  return null;
}

/** Whether the key imports as a public key of its type, and an RSA key is long enough; what is wrong if not. */
function publicKeyProblem(key: Record<string, unknown>): string | null {
  let bits: number | undefined;
  try {
    bits = createPublicKey({ key: key as JsonWebKey, format: 'jwk' }).asymmetricKeyDetails?.modulusLength;
  } catch {
    return `is not a valid ${String(key.kty)} public key (its curve, coordinates, modulus or exponent)`;
  }
  if (key.kty === 'RSA' && (bits ?? 0) < MIN_RSA_BITS)
    return `is an RSA key of ${bits} bits: at least ${MIN_RSA_BITS} are needed (RFC 7518 section 3.3)`;
  return null;
}

/** Parses stored or typed JWK Set text; throws an Error whose message says what is wrong. */
export function parseJwks(text: string): JsonWebKeySet {
  if (text.length > MAX_JWKS_LENGTH) throw new Error(`jwks is longer than ${MAX_JWKS_LENGTH} characters`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('jwks is not valid JSON');
  }
  const problem = jwksProblem(value);
  if (problem !== null) throw new Error(problem);
  return value as JsonWebKeySet;
}

/** The stored form of a set that passed jwksProblem: compact JSON. */
export const jwksText = (value: unknown): string => JSON.stringify(value);
