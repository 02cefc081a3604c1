import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, errors, jwtVerify, type JWK } from 'jose';
import type { DpopNonces } from './dpop-nonce.js';
import type { DpopReplayCache } from './dpop-replay-cache.js';
import type { DpopSettings } from './dpop-settings.js';

// RFC 7517 / RFC 7518 section 6: the members that make a JWK private (or symmetric: k).
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
// Far above any real proof (an RSA-4096 jwk makes about 1.5 kB).
const MAX_PROOF_LENGTH = 8192;

/** What a proof is checked against: the request the API received, and the access token it came with. */
export interface DpopRequest {
  /** The request's method, e.g. 'GET'. */
  method: string;
  /** The request's absolute URL; its query and fragment are ignored. */
  url: string;
  /** The access token of the Authorization header. */
  accessToken: string;
}

/** Everything a proof check needs besides the request. */
export interface DpopVerifier {
  settings: DpopSettings;
  replays: DpopReplayCache;
  nonces: DpopNonces | null;
  now: () => number;
}

export type DpopProofResult =
  { ok: true; jkt: string; nonce: 'current' | 'previous' | null } | { ok: false; problem: 'dpop_proof' | 'dpop_nonce'; detail: string };

const refused = (detail: string): DpopProofResult => ({ ok: false, problem: 'dpop_proof', detail });

/**
 * Checks the `DPoP` header of a request to a protected resource, as RFC 9449 section 4.3 lists (with section 7's
 * `ath`, and section 9's nonce when one is required): one well-formed JWT; typ dpop+jwt; an allowed asymmetric alg;
 * a public `jwk` header (no private members) that verifies the signature; jti, htm, htu, iat present; htm equal to
 * the request's method; htu equal to its URL without query and fragment (both normalized by the WHATWG URL parser:
 * scheme and host lowercased, default port dropped); iat no older than `proofMaxAgeSeconds` and at most
 * `clockToleranceSeconds` ahead; `ath` the base64url SHA-256 of the access token; the nonce when required; and a
 * jti not seen in this process within the window (checked last, so only a proof that passed everything else is
 * remembered). Answers the proof key's RFC 7638 thumbprint, which the caller compares with the token's `cnf.jkt`.
 */
export async function verifyDpopProof(
  proof: string | string[] | undefined,
  request: DpopRequest,
  verifier: DpopVerifier,
): Promise<DpopProofResult> {
  const { settings } = verifier;
  // Section 4.3 step 1: exactly one DPoP header.
  if (proof === undefined) return refused('The request has no DPoP proof');
  if (Array.isArray(proof) || proof.includes(',')) return refused('The request has more than one DPoP proof');
  if (proof.length > MAX_PROOF_LENGTH || !COMPACT_JWS.test(proof)) return refused('The DPoP proof is not a JWT');

  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    return refused('The DPoP proof is not a JWT');
  }
  if (header.typ !== 'dpop+jwt') return refused('The DPoP proof does not have typ dpop+jwt');
  if (typeof header.alg !== 'string' || !(settings.algorithms as readonly string[]).includes(header.alg)) {
    return refused(`The DPoP proof's alg is not one of ${settings.algorithms.join(' ')}`);
  }
  const jwk = header.jwk;
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) return refused('The DPoP proof has no jwk header');
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) return refused("The DPoP proof's jwk header holds a private key");

  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...settings.algorithms],
      requiredClaims: ['jti', 'htm', 'htu', 'iat'],
      currentDate: new Date(verifier.now()),
      clockTolerance: settings.clockToleranceSeconds,
    }));
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) return refused("The DPoP proof's signature does not verify with its jwk");
    if (error instanceof errors.JWTClaimValidationFailed) return refused(`The DPoP proof lacks the ${error.claim} claim or it is invalid`);
    // Anything else is the proof's too: a JOSE error, or Web Crypto refusing its jwk (a DataError for an EC key
    // without its point), which jose passes on as it is. Never an exception: the request's own header is untrusted.
    return refused('The DPoP proof is invalid');
  }

  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > 256) return refused('The DPoP proof has no valid jti');
  if (htm !== request.method) return refused("The DPoP proof's htm is not the method of the request");
  if (typeof htu !== 'string' || withoutQuery(htu) === null || withoutQuery(htu) !== withoutQuery(request.url)) {
    return refused("The DPoP proof's htu is not the URL of the request");
  }
  const nowSeconds = verifier.now() / 1000;
  if (typeof iat !== 'number' || iat > nowSeconds + settings.clockToleranceSeconds)
    return refused('The DPoP proof was issued in the future');
  if (iat < nowSeconds - settings.proofMaxAgeSeconds) return refused('The DPoP proof is too old');
  if (ath !== accessTokenHash(request.accessToken)) return refused("The DPoP proof's ath is not the hash of the access token");

  let nonce: 'current' | 'previous' | null = null;
  if (verifier.nonces && settings.nonce?.required) {
    nonce = verifier.nonces.check(payload.nonce);
    if (nonce === null) {
      const detail = payload.nonce === undefined ? 'The resource requires a DPoP nonce' : 'The DPoP nonce is invalid or expired';
      return { ok: false, problem: 'dpop_nonce', detail };
    }
  }

  let jkt: string;
  try {
    jkt = await calculateJwkThumbprint(jwk as JWK, 'sha256');
  } catch {
    return refused("The DPoP proof's jwk is invalid");
  }
  const expiresAtMs = (iat + settings.proofMaxAgeSeconds + settings.clockToleranceSeconds) * 1000;
  if (!verifier.replays.remember(jkt, jti, expiresAtMs)) return refused('The DPoP proof was already used');
  return { ok: true, jkt, nonce };
}

/** RFC 9449 section 4.2 `ath`: base64url(SHA-256(ASCII access token)). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/** The URL without query and fragment, normalized (RFC 9449 section 4.3 step 9; RFC 3986 section 6.2.2, 6.2.3). */
function withoutQuery(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return `${url.origin}${url.pathname}`;
}
